import Foundation
import FrostboxCore
import Logging
import MockAPNs
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import FrostboxAPNs
@testable import FrostboxPushEngine

@Suite("APNs gateway: connections over every event loop, batches in one hand-over")
struct APNsGatewayTests {
    @Test("connection limits are cut in shares that differ by at most one, none empty")
    func shares() {
        #expect(HTTP2Gateway.shares(of: 4, over: 2) == [2, 2])
        #expect(HTTP2Gateway.shares(of: 5, over: 2) == [3, 2])
        #expect(HTTP2Gateway.shares(of: 4, over: 3) == [2, 1, 1])
        #expect(HTTP2Gateway.shares(of: 1, over: 1) == [1])
        #expect(HTTP2Gateway.shares(of: 4, over: 4) == [1, 1, 1, 1])
    }

    @Test("a batch is dealt over both loops of a two-loop group: each loop opens connections of its own, every request answered once")
    func batchOverBothLoops() async throws {
        let harness = try await APNsHarness.start { $0.latency = .milliseconds(50) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var settings = APNsHarness.settings
        settings.maximumConnections = 4
        settings.streamsPerConnection = 100
        let gateway = try HTTP2Gateway(
            endpoint: APNsEndpoint(host: "127.0.0.1", port: harness.mock.port), identity: nil,
            trustedCertificatesPath: harness.mock.certificatePath, settings: settings, maximumResends: 10, answerHeader: .named("apns-id"),
            loops: Array(group.makeIterator()), random: { 0.5 }, logger: Logger(label: "gateway-test"))
        #expect(gateway.loopCount == 2)

        let pushes = (0..<1_000).map { alert(to: token("a1", $0)) }
        let bearer = try APNsProviderTokenIssuer(key: harness.key, clock: harness.clientClock.closure).token().bearer
        let payloads = APNsPayloadEncoder()
        let requests = try pushes.map { push in
            let request = try APNsRequest.make(push, topic: APNsHarness.bundleID, payloads: payloads).get()
            return HTTP2Outgoing(path: request.path, fields: request.fields, authorization: bearer, body: request.body)
        }
        let answers = try await collect(requests.count) { answer in _ = gateway.send(requests, answer: answer) }

        #expect(answers.count == 1_000)
        #expect(answers.values.allSatisfy { if case .response(200, _, _) = $0 { true } else { false } })
        // Both loops carried requests: each has connections of its own, and together no more than the limit.
        #expect(gateway.openConnectionsPerLoop.allSatisfy { $0 >= 1 })
        #expect(gateway.openConnections <= 4)
        let counters = await harness.mock.counters()
        #expect(counters.delivered == 1_000)
        #expect(counters.requestsByID == Dictionary(uniqueKeysWithValues: pushes.map { ($0.messageID, 1) }))
        await gateway.shutdown()
        #expect(gateway.openConnections == 0)
        try await harness.mock.stop()
        try await group.shutdownGracefully()
    }

    @Test("a batch through the router: every outcome comes back once, by index, including refusals made before sending")
    func routerBatch() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        var pushes = (0..<300).map { alert(to: token("a1", $0)) }
        // Refused unsent: a collapse id over 64 bytes, and an app that is not configured.
        pushes[7] = alert(to: token("a1", 7), collapseID: String(repeating: "c", count: 65))
        pushes[8] = alert(to: token("a1", 8), topic: "com.example.other")
        let outcomes = await router.send(pushes).collect(into: [Int: [PushOutcome]]()) { $0[$1, default: []].append($2) }
        #expect(outcomes.count == 300)
        #expect(outcomes.values.allSatisfy { $0.count == 1 })
        #expect(outcomes[7] == [.permanentFailure(status: 400, reason: "BadCollapseId")])
        #expect(outcomes[8] == [.permanentFailure(status: 400, reason: "TopicDisallowed")])
        for index in 0..<300 where index != 7 && index != 8 {
            #expect(outcomes[index] == [.delivered(messageID: pushes[index].messageID)])
        }
        #expect(await harness.mock.counters().delivered == 298)
        try await harness.stop(router)
    }

    @Test("a batch meeting GOAWAYs and stream resets: pushes cut or reset go again, each delivered exactly once")
    func batchThroughFaults() async throws {
        let harness = try await APNsHarness.start {
            $0.goAwayAfterRequests = 150
            $0.latency = .milliseconds(20)
        }
        let router = try harness.router()
        let pushes = (0..<1_000).map { alert(to: token("a1", $0)) }
        let outcomes = await router.send(pushes).collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
        #expect(outcomes.count == 1_000)
        #expect(outcomes.allSatisfy { $0.value == .delivered(messageID: pushes[$0.key].messageID) })
        let counters = await harness.mock.counters()
        #expect(counters.goAways >= 2)
        #expect(await harness.mock.deliveries().reduce(into: [String: Int]()) { $0[$1.messageID, default: 0] += 1 }.values.allSatisfy { $0 == 1 })
        try await harness.stop(router)
    }

    /// Runs `start` with an answer handler and waits until `count` answers came; fails the
    /// test should an index be answered twice.
    private func collect(
        _ count: Int, _ start: (@escaping @Sendable ([(Int, HTTP2Exchange)]) -> Void) -> Void
    ) async throws -> [Int: HTTP2Exchange] {
        let (stream, continuation) = AsyncStream.makeStream(of: (Int, HTTP2Exchange).self)
        let seen = Atomic<Int>(0)
        start { answers in
            for answer in answers { continuation.yield(answer) }
            if seen.add(answers.count, ordering: .relaxed).newValue == count { continuation.finish() }
        }
        var answers: [Int: HTTP2Exchange] = [:]
        for await (index, exchange) in stream {
            #expect(answers[index] == nil, "request \(index) answered twice")
            answers[index] = exchange
        }
        return answers
    }
}
