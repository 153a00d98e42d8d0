import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxPushEngine
import MockAPNs
import Testing

/// Gateway faults against mock-apns. Each test counts by `apns-id` what the double received
/// and what it delivered: no push lost, none sent twice — except pushes left unanswered by a
/// lost connection, which may have been processed and are sent again.
@Suite("APNs transport under gateway faults")
struct APNsFaultTests {
    private func sendAll(_ pushes: [PushNotification], through router: APNsPushRouter) async -> [String: PushOutcome] {
        await withTaskGroup(of: (String, PushOutcome).self) { group in
            for push in pushes { group.addTask { (push.messageID, await router.send(push)) } }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    private func deliveredCounts(_ harness: APNsHarness) async -> [String: Int] {
        await harness.mock.deliveries().reduce(into: [:]) { $0[$1.messageID, default: 0] += 1 }
    }

    private func once(_ pushes: [PushNotification]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: pushes.map { ($0.messageID, 1) })
    }

    private func allDelivered(_ outcomes: [String: PushOutcome]) -> Bool {
        outcomes.values.allSatisfy { if case .delivered = $0 { true } else { false } }
    }

    @Test("the server lowers its stream limit mid-connection: later streams stay within it, every push once")
    func serverLowersStreamLimit() async throws {
        let harness = try await APNsHarness.start {
            $0.lowerStreamLimit = (afterRequests: 10, to: 5)
            $0.latency = .milliseconds(10)
        }
        var settings = APNsHarness.settings
        settings.maximumConnections = 1
        let router = try harness.router(settings: settings)
        let first = (0..<10).map { alert(to: token("a1", $0)) }
        let second = (10..<210).map { alert(to: token("a1", $0)) }
        #expect(allDelivered(await sendAll(first, through: router)))
        #expect(allDelivered(await sendAll(second, through: router)))
        let counters = await harness.mock.counters()
        #expect(counters.requestsByID == once(first + second))
        #expect(await deliveredCounts(harness) == once(first + second))
        #expect(counters.peakConcurrentStreamsAfterLimitChange <= 5)
        #expect(counters.peakConcurrentStreamsAfterLimitChange >= 2)
        #expect(counters.connections == 1)
        try await harness.stop(router)
    }

    @Test("answers before the request body is read, then RST_STREAM(NO_ERROR): every answer is final, every push once")
    func answerBeforeBody() async throws {
        let harness = try await APNsHarness.start { $0.answerBeforeBody = true }
        let router = try harness.router()
        let pushes = (0..<1_000).map { alert(to: token("a1", $0)) }
        let outcomes = await sendAll(pushes, through: router)
        #expect(allDelivered(outcomes))
        #expect(outcomes.count == pushes.count)
        #expect(await harness.mock.counters().requestsByID == once(pushes))
        #expect(await deliveredCounts(harness) == once(pushes))
        #expect(harness.sleeper.recorded.isEmpty)
        try await harness.stop(router)
    }

    @Test("GOAWAY with its last stream id in the middle of 1,000 streams in flight: those above go again on a new connection, once")
    func goAwayMidFlight() async throws {
        let harness = try await APNsHarness.start {
            $0.goAwayAfterRequests = 500
            $0.latency = .milliseconds(100)
        }
        var settings = APNsHarness.settings
        settings.maximumConnections = 1
        settings.streamsPerConnection = 1_000
        let router = try harness.router(settings: settings)
        let pushes = (0..<1_000).map { alert(to: token("a1", $0)) }
        let outcomes = await sendAll(pushes, through: router)
        #expect(allDelivered(outcomes))
        let counters = await harness.mock.counters()
        #expect(counters.goAways >= 1)
        #expect(counters.connections >= 2)
        #expect(counters.peakConcurrentStreams >= 500)
        // Streams above the cut never reach a request handler, and are sent again at once (no
        // backoff): each push was received as a complete request exactly once, and delivered once.
        #expect(counters.requestsByID == once(pushes))
        #expect(await deliveredCounts(harness) == once(pushes))
        // The first connection was not dropped for want of answers: no push needed a retry
        // with backoff (the default ping timeout is far longer than this test).
        #expect(harness.sleeper.recorded.isEmpty)
        try await harness.stop(router)
    }

    @Test("RST_STREAM on some streams: those pushes are retried (same apns-id) and delivered once; the connection stays")
    func streamResets() async throws {
        let harness = try await APNsHarness.start()
        var settings = APNsHarness.settings
        settings.maximumConnections = 1
        let router = try harness.router(settings: settings)
        let pushes = (0..<300).map { alert(to: token($0 % 10 == 0 ? "05e7" : "a1", $0)) }
        let outcomes = await sendAll(pushes, through: router)
        #expect(allDelivered(outcomes))
        let counters = await harness.mock.counters()
        #expect(counters.streamResets == 30)
        let expected = Dictionary(uniqueKeysWithValues: pushes.map { ($0.messageID, $0.token.value.hasPrefix("05e7") ? 2 : 1) })
        #expect(counters.requestsByID == expected)
        #expect(await deliveredCounts(harness) == once(pushes))
        #expect(counters.connections == 1)
        try await harness.stop(router)
    }

    @Test("a gateway that stops answering (PINGs too) is dropped after the ping timeout; its pushes go out again on a new connection")
    func stalledGateway() async throws {
        let harness = try await APNsHarness.start { $0.stallAfterRequests = 20 }
        var settings = APNsHarness.settings
        // A 2 s ping timeout also dropped healthy connections in a loaded whole run (every push
        // then "refused 10 times"); 10 s still finds the stalled one long before 120 s.
        settings.pingInterval = .seconds(2)
        settings.pingTimeout = .seconds(10)
        settings.requestTimeout = .seconds(120)
        let router = try harness.router(settings: settings)
        let pushes = (0..<100).map { alert(to: token("a1", $0)) }
        let outcomes = await sendAll(pushes, through: router)
        // Every push delivered: had the ping timeout not found the dead connection, the pushes
        // on it would have run into the 120 s request deadline and failed (no clock needed).
        #expect(allDelivered(outcomes))
        let counters = await harness.mock.counters()
        #expect(counters.connections >= 2)
        let deliveries = await harness.mock.deliveries()
        #expect(Set(deliveries.map(\.messageID)) == Set(pushes.map(\.messageID)))
        // A push delivered twice must have been in flight on the connection that was lost.
        let byID = Dictionary(grouping: deliveries, by: \.messageID)
        for (id, copies) in byID where copies.count > 1 {
            #expect(copies.contains { $0.connection == 1 }, "\(id) delivered twice without a connection loss")
        }
        try await harness.stop(router)
    }

    @Test("a TLS handshake failure is a temporary failure; reconnects back off instead of storming the gateway")
    func tlsHandshakeFailure() async throws {
        let harness = try await APNsHarness.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stranger = directory.appendingPathComponent("other.crt").path
        try MockAPNsCertificates.makeServerCertificate().certificatePEM.write(toFile: stranger, atomically: true, encoding: .utf8)
        var app = harness.app()
        app.trustedCertificatesPath = stranger
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 1
        var settings = APNsHarness.settings
        // Longer than any loaded test run: the wait is a random point in its upper half, so 30 s
        // could end within a slow run (it did: a second connect 54 s in) and let a retry through.
        settings.reconnectInitialBackoff = .seconds(3_600)
        settings.reconnectMaximumBackoff = .seconds(3_600)
        let router = try harness.router([app], retry: retry, settings: settings)
        for index in 0..<3 {
            let outcome = await router.send(alert(to: token("a1", index)))
            guard case .temporaryFailure(let reason) = outcome else {
                Issue.record("expected a temporary failure, got \(outcome)")
                continue
            }
            #expect(reason.hasPrefix("connect failed"))
        }
        let counters = await harness.mock.counters()
        #expect(counters.requests == 0)
        #expect(counters.connections == 1)
        #expect(router.openConnections == 0)
        try await harness.stop(router)
    }
}
