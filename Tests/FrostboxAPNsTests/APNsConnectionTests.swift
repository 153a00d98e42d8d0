import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxPushEngine
import MockAPNs
import Testing

@Suite("APNs connection recovery against mock-apns")
struct APNsConnectionTests {
    @Test("after GOAWAY, the pushes the server did not process are resent: none lost, none twice")
    func goAwayRecovery() async throws {
        let harness = try await APNsHarness.start { $0.goAwayAfterRequests = 100 }
        let router = try harness.router()
        let pushes = (0..<300).map { alert(to: token("a1", $0)) }
        let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
            for push in pushes { group.addTask { await router.send(push) } }
            return await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { if case .delivered = $0 { true } else { false } })
        let delivered = await harness.mock.deliveries().map(\.messageID)
        #expect(delivered.count == pushes.count)
        #expect(Set(delivered) == Set(pushes.map(\.messageID)))
        let counters = await harness.mock.counters()
        #expect(counters.goAways >= 2)
        #expect(counters.connections >= 3)
        try await harness.stop(router)
    }

    @Test("after a connection reset, the pushes in flight are retried on a new connection: none lost, none twice")
    func resetRecovery() async throws {
        let harness = try await APNsHarness.start { $0.resetAfterRequests = 100 }
        // Generous budgets: retries here are instant, so a push can meet several resets in a
        // row; what this test checks is that no push is lost or recorded twice.
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 20
        retry.maximumUnprocessedResends = 20
        let router = try harness.router(retry: retry)
        let pushes = (0..<300).map { alert(to: token("a1", $0)) }
        let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
            for push in pushes { group.addTask { await router.send(push) } }
            return await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        let undelivered = outcomes.filter { if case .delivered = $0 { false } else { true } }
        #expect(undelivered.isEmpty)
        let delivered = await harness.mock.deliveries().map(\.messageID)
        #expect(delivered.count == pushes.count)
        #expect(Set(delivered) == Set(pushes.map(\.messageID)))
        let counters = await harness.mock.counters()
        // At least one reset met pushes in flight (what is lost is then resent alone, one per
        // connection, so how many more resets follow depends on the timing).
        #expect(counters.resets >= 1)
        #expect(counters.connections > counters.resets)
        try await harness.stop(router)
    }

    @Test("a push that resets its connection every time is sent alone, and given up as permanent after two losses alone; nothing is recorded for it")
    func resettingToken() async throws {
        let harness = try await APNsHarness.start()
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 3
        let router = try harness.router(retry: retry)
        let poison = token("0dead")
        #expect(await router.send(alert(to: poison)) == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"))
        let counters = await harness.mock.counters()
        #expect(counters.resets == 3)
        #expect(counters.delivered == 0)
        // Said once, at warning level, with the token redacted, as other given-up pushes are.
        let givenUp = harness.logs.all.filter { $0.message.contains("given up") }
        #expect(givenUp.count == 1)
        #expect(givenUp.first?.level == .warning)
        #expect(givenUp.first?.metadata["token"] == "\(poison.redacted)")
        #expect(!harness.logs.all.contains { $0.description.contains(poison.value) })
        var once = PushRetryPolicy()
        once.maximumAttempts = 1
        let impatient = try harness.router(retry: once)
        #expect(
            await impatient.send(alert(to: token("0dead"))) == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"),
            "a push lost with its connection gets the attempts to be lost alone twice, whatever the attempt budget")
        #expect(await harness.mock.counters().resets == 6)
        await impatient.shutdown()
        let after = alert(to: token("a1", 1))
        #expect(await router.send(after) == .delivered(messageID: after.messageID))
        try await harness.stop(router)
    }

    @Test("many concurrent pushes share few connections, within the server's stream limit")
    func concurrentStreamsOnFewConnections() async throws {
        let harness = try await APNsHarness.start {
            $0.maximumConcurrentStreams = 50
            $0.latency = .milliseconds(20)
        }
        var settings = APNsHarness.settings
        settings.maximumConnections = 1
        let router = try harness.router(settings: settings)
        let pushes = (0..<400).map { alert(to: token("a1", $0)) }
        await withTaskGroup(of: Void.self) { group in
            for push in pushes { group.addTask { _ = await router.send(push) } }
        }
        let counters = await harness.mock.counters()
        #expect(counters.delivered == 400)
        #expect(counters.connections == 1)
        #expect(counters.peakConcurrentStreams > 1)
        #expect(counters.peakConcurrentStreams <= 50)
        try await harness.stop(router)
    }
}

@Suite("APNs open-connection count")
struct APNsConnectionCountTests {
    @Test("no connection before the first push, one after it, none after shutdown")
    func openConnections() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        #expect(router.openConnections == 0)
        let push = alert(to: token("a1", 1))
        #expect(await router.send(push) == .delivered(messageID: push.messageID))
        #expect(router.openConnections == 1)
        await router.shutdown()
        // Shutdown returns once every connection is closed and counted: no waiting here.
        #expect(router.openConnections == 0)
        try await harness.mock.stop()
    }
}
