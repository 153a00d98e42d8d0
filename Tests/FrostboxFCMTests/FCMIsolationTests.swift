import FrostboxCore
import FrostboxFCM
import FrostboxPushEngine
import MockFCM
import Testing

/// A message whose request makes the server drop the connection (mock-fcm's `DROP…` tokens)
/// takes no other message down for good: what was on a lost connection is sent again alone,
/// on a connection of its own, and what is lost alone is given up.
@Suite("FCM: a poison message is isolated")
struct FCMIsolationTests {
    @Test("a message that drops its connection every time is sent alone, and given up as permanent after two losses alone, even with one attempt")
    func droppingToken() async throws {
        try await FCMHarness.with { harness in
            var retry = PushRetryPolicy.fcm
            retry.maximumAttempts = 1
            let router = try harness.router(retry: retry)
            let outcomes = await collect(router.send([alert(token: "DROP-1", messageID: "d")]))
            let after = await collect(router.send([alert(token: "tok-1", messageID: "a")]))
            await router.shutdown()
            #expect(outcomes[0] == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"))
            #expect(after[0]?.isDelivered == true, "the router still sends")
            let counters = harness.mock.counters()
            #expect(counters.rejected["ConnectionDropped"] == 3, "sent once, then alone twice")
            #expect(counters.requestsByAlertID == ["d": 3, "a": 1])
            #expect(counters.delivered == 1)
        }
    }

    @Test("one poison token among 1,000 messages through mock-fcm: 999 delivered, the poison one given up as permanent after two losses alone")
    func poisonAmongAThousand() async throws {
        try await FCMHarness.with { harness in
            let router = try harness.router()
            let pushes = (0..<1_000).map { n in alert(token: n == 500 ? "DROP-\(n)" : "tok-\(n)", messageID: "m\(n)") }
            let outcomes = await collect(router.send(pushes))
            await router.shutdown()
            #expect(outcomes.count == 1_000)
            #expect(outcomes[500] == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"))
            #expect(outcomes.values.count { $0.isDelivered } == 999)
            let counters = harness.mock.counters()
            // A message the double had accepted when the connection dropped under its answer is
            // sent again: delivered twice, the one case where that may happen.
            #expect(Set(harness.mock.deliveries().map(\.token)).count == 999)
            #expect(!harness.mock.deliveries().contains { $0.token.hasPrefix("DROP") })
            #expect(counters.rejected["ConnectionDropped"] == 3, "sent with others once, then alone twice")
        }
    }
}
