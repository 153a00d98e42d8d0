import Foundation
import Testing

@testable import FrostboxPushEngine

/// The pool against a modelled gateway that drops connections (`HTTP2PoolSimulation`): every
/// push ends delivered or given up, and nothing is left waiting for a connection that never
/// comes — with time standing still, only the pool's own decisions can move a request on.
@Suite("APNs pool against a gateway that drops connections (no I/O)")
struct APNsPoolSimulationTests {
    /// Runs a simulation on a thread of its own. They take seconds of CPU in a debug build, and
    /// on the test process's cooperative pool (two threads on this machine) thirty of them
    /// starved every other suite's in-process servers: requests timed out in a whole run.
    private static func offThePool(_ body: @escaping @Sendable () -> HTTP2PoolSimulation.Result) async -> HTTP2PoolSimulation.Result {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    private static func limits(connections: Int, streams: Int) -> HTTP2PoolState.Limits {
        var limits = HTTP2PoolState.Limits()
        limits.maximumConnections = connections
        limits.maximumAloneConnections = 4
        limits.streamsPerConnection = streams
        return limits
    }

    @Test(
        "connections dropped after every 100th request: every push delivered, none left waiting",
        arguments: [1, 2, 4], 0..<5 as Range<UInt64>)
    func resetAfterRequests(connections: Int, seed: UInt64) async {
        let result = await Self.offThePool {
            var simulation = HTTP2PoolSimulation(limits: Self.limits(connections: connections, streams: 100), resetAfterRequests: 100, seed: seed)
            return simulation.run(pushes: 300)
        }
        #expect(result.unfinished.isEmpty, "stalled: \(result.unfinished.count) pushes, \(result.waiting) waiting, \(result.inFlight) in flight")
        #expect(result.waiting == 0 && result.inFlight == 0)
        #expect(result.delivered.count == 300)
        #expect(result.givenUp.isEmpty)
    }

    @Test("one poison push among 1,000: 999 delivered, the poison one given up, none left waiting", arguments: [1, 2, 4], 0..<5 as Range<UInt64>)
    func poison(connections: Int, seed: UInt64) async {
        let result = await Self.offThePool {
            var simulation = HTTP2PoolSimulation(limits: Self.limits(connections: connections, streams: 100), poison: [500], seed: seed)
            return simulation.run(pushes: 1_000)
        }
        #expect(result.unfinished.isEmpty, "stalled: \(result.unfinished.count) pushes, \(result.waiting) waiting, \(result.inFlight) in flight")
        #expect(result.givenUp == [500])
        #expect(result.delivered.count == 999)
        #expect(result.waiting == 0 && result.inFlight == 0)
        #expect(result.connectionsLost == 3, "with others once, then alone twice")
        #expect(result.peakConnections <= connections + 4, "the shared connections and the alone lane, each within its maximum")
    }
}
