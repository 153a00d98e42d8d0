import FrostboxCore
import NIOCore
import Testing

@testable import FrostboxAPNs
@testable import FrostboxPushEngine

/// A push whose request makes the gateway drop the connection takes no other push down: what
/// was on a lost connection is sent again alone, and what is lost alone is given up.
@Suite("APNs: a poison push is isolated")
struct APNsIsolationTests {
    typealias Action = HTTP2PoolState.Action

    private func pool(connections: Int, streams: Int, alone: Int = 4) -> HTTP2PoolState {
        var limits = HTTP2PoolState.Limits()
        limits.maximumConnections = connections
        limits.maximumAloneConnections = alone
        limits.streamsPerConnection = streams
        return HTTP2PoolState(limits: limits)
    }

    private func written(_ actions: [Action]) -> [HTTP2ConnectionID: [HTTP2RequestID]] {
        var result: [HTTP2ConnectionID: [HTTP2RequestID]] = [:]
        for case .write(let id, let started) in actions { result[id, default: []] += started.map(\.request) }
        return result
    }

    private func completed(_ actions: [Action]) -> [HTTP2RequestID: HTTP2Exchange] {
        var result: [HTTP2RequestID: HTTP2Exchange] = [:]
        for case .complete(let id, let exchange) in actions { result[id] = exchange }
        return result
    }

    private func answer(_ pool: inout HTTP2PoolState, _ connection: HTTP2ConnectionID, _ stream: Int32) -> [Action] {
        pool.headers(connection, stream: stream, status: 200, header: nil, endStream: true, now: 0)
    }

    @Test("a request sent alone gets a connection of its own lane; shared requests go on the shared connection meanwhile, none waits for the other")
    func aloneBesideShared() {
        var pool = pool(connections: 1, streams: 4, alone: 1)
        _ = pool.submit(1, now: 0)
        _ = pool.submit(2, now: 0)
        #expect(written(pool.settings(1, maxConcurrentStreams: 100, now: 0)) == [1: [1, 2]])
        #expect(pool.submit(3, alone: true, now: 0) == [.connect(2)])
        #expect(written(pool.submit(4, now: 0)) == [1: [4]], "the shared connection keeps taking requests")
        #expect(written(pool.settings(2, maxConcurrentStreams: 100, now: 0)) == [2: [3]])
        #expect(pool.submit(5, alone: true, now: 0).isEmpty, "one request at a time on a connection of the alone lane, which is at its maximum")
        #expect(written(pool.submit(6, now: 0)) == [1: [6]])
        #expect(written(answer(&pool, 1, 1)).isEmpty, "a shared connection never carries a request sent alone")
        #expect(written(answer(&pool, 2, 1)) == [2: [5]])
        #expect(pool.connectionCount == 2)
    }

    @Test("requests waiting to go alone open connections of their lane one at a time, up to its maximum, each carrying one of them")
    func aloneLaneGrows() {
        var pool = pool(connections: 1, streams: 4, alone: 2)
        #expect(pool.submit(1, alone: true, now: 0) == [.connect(1)])
        #expect(pool.submit(2, alone: true, now: 0).isEmpty, "one connect at a time")
        _ = pool.submit(3, alone: true, now: 0)
        let first = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(written(first) == [1: [1]])
        #expect(first.contains(.connect(2)))
        let second = pool.settings(2, maxConcurrentStreams: 100, now: 0)
        #expect(written(second) == [2: [2]])
        #expect(!second.contains { if case .connect = $0 { true } else { false } }, "the lane is at its maximum")
        #expect(pool.aloneConnectionCount == 2)
        #expect(written(answer(&pool, 1, 1)) == [1: [3]])
        #expect(pool.submit(4, now: 0) == [.connect(3)], "shared requests never go on the alone lane")
    }

    @Test("a connection lost under a request sent alone loses that request only; one lost with others on it loses them all")
    func lossesAreLost() {
        var pool = pool(connections: 2, streams: 4)
        _ = pool.submit(1, now: 0)
        _ = pool.submit(2, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = pool.submit(3, alone: true, now: 0)
        _ = pool.settings(2, maxConcurrentStreams: 100, now: 0)
        #expect(completed(pool.closed(2, error: nil, now: 0, random: 0.5)) == [3: .lost("connection closed")])
        #expect(completed(pool.closed(1, error: nil, now: 0, random: 0.5)) == [1: .lost("connection closed"), 2: .lost("connection closed")])
    }

    @Test("while connects back off, a request sent alone fails at once when no connection of its lane is open")
    func aloneDuringBackoff() {
        var pool = pool(connections: 1, streams: 4)
        _ = pool.submit(1, now: 0)
        _ = pool.closed(1, error: "refused", now: 0, random: 0)
        #expect(pool.submit(2, alone: true, now: 1) == [.complete(2, .failed("connect failed: refused"))])
        #expect(pool.waiting == 0)
    }

    @Test("a request waiting to go alone fails at its deadline and on shutdown like any other")
    func aloneDeadlines() {
        var pool = pool(connections: 1, streams: 4)
        let later = pool.limits.requestTimeout / 2
        _ = pool.submit(1, now: later)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: later)
        _ = pool.submit(2, alone: true, now: 0)
        #expect(completed(pool.tick(now: pool.limits.requestTimeout + 1)) == [2: .failed("timeout")])
        _ = pool.submit(3, alone: true, now: pool.limits.requestTimeout + 1)
        #expect(completed(pool.shutdown())[3] == .failed("transport shut down"))
    }

    @Test(
        "one poison token among 1,000 pushes through mock-apns: 999 delivered, the poison one given up as permanent after two losses alone",
        arguments: [1, 4])
    func poisonAmongAThousand(connections: Int) async throws {
        let harness = try await APNsHarness.start()
        var settings = APNsHarness.settings
        settings.maximumConnections = connections
        let router = try harness.router(settings: settings)
        let pushes = (0..<1_000).map { n in n == 500 ? alert(to: token("0dead", n)) : alert(to: token("a1", n)) }
        var outcomes: [Int: PushOutcome] = [:]
        for await (index, outcome) in router.send(pushes) { outcomes[index] = outcome }
        #expect(outcomes.count == 1_000)
        #expect(outcomes[500] == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"))
        let delivered = outcomes.filter { if case .delivered = $0.value { true } else { false } }
        #expect(delivered.count == 999)
        let counters = await harness.mock.counters()
        #expect(counters.delivered == 999)
        #expect(counters.resets == 3, "sent with others once, then alone twice")
        try await harness.stop(router)
    }
}
