import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxPushEngine
import MockAPNs
import Testing

@Suite("APNs outcomes against mock-apns")
struct APNsOutcomeTests {
    @Test("200: delivered with the apns-id, every header and the sorted-key payload as sent")
    func delivered() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let push = alert(to: token("a1", 1), collapseID: "frost-61.50,23.75", expiration: 1_800_003_600)
        let outcome = await router.send(push)
        #expect(outcome == .delivered(messageID: push.messageID))

        let deliveries = await harness.mock.deliveries()
        try #require(deliveries.count == 1)
        let delivery = deliveries[0]
        #expect(delivery.messageID == push.messageID)
        #expect(delivery.token == push.token.value)
        #expect(delivery.topic == APNsHarness.bundleID)
        #expect(delivery.pushType == "alert")
        #expect(delivery.priority == 10)
        #expect(delivery.expiration == 1_800_003_600)
        #expect(delivery.collapseID == "frost-61.50,23.75")
        #expect(delivery.keyID == harness.key.keyID)
        #expect(delivery.tokenIssuedAt == harness.clientClock.now)
        #expect(
            delivery.payload
                == #"{"aps":{"alert":{"body":"Frost tonight: −3 °C","loc-args":["-3"],"loc-key":"FROST_ALERT","title":"Frost"},"#
                + #""interruption-level":"time-sensitive","sound":"default","thread-id":"frost"},"#
                + #""frost":{"box":"61.50,23.75","level":"hard","minimum_c":-3,"night":"2026-11-22"}}"#)
        try await harness.stop(router)
    }

    @Test("a throttled push (the all-clear) goes with priority 5, still as a visible alert")
    func throttled() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        var push = alert(to: token("a1", 2))
        push.priority = .throttled
        push.content.interruption = .passive
        #expect(await router.send(push) == .delivered(messageID: push.messageID))
        let delivery = try #require(await harness.mock.deliveries().first)
        #expect(delivery.pushType == "alert")
        #expect(delivery.priority == 5)
        #expect(delivery.payload.contains(#""interruption-level":"passive""#))
        try await harness.stop(router)
    }

    @Test("400 BadDeviceToken and 410 Unregistered are invalid tokens; 410 carries its timestamp")
    func invalidTokens() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        #expect(await router.send(alert(to: token("0bad"))) == .invalidToken(reason: "BadDeviceToken", unregisteredAtMilliseconds: nil))
        #expect(
            await router.send(alert(to: token("0410")))
                == .invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: harness.mockClock.now * 1000))
        #expect(await harness.mock.deliveries().isEmpty)
        #expect(harness.sleeper.recorded.isEmpty)
        try await harness.stop(router)
    }

    @Test("other 400s and 413 are permanent failures, not retried, reason kept")
    func permanentFailures() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        #expect(await router.send(alert(to: token("0400"))) == .permanentFailure(status: 400, reason: "DeviceTokenNotForTopic"))
        #expect(await router.send(alert(to: token("0413"))) == .permanentFailure(status: 413, reason: "PayloadTooLarge"))
        let counters = await harness.mock.counters()
        #expect(counters.requests == 2)
        #expect(harness.sleeper.recorded.isEmpty)
        try await harness.stop(router)
    }

    @Test("a 403 other than an expired token stops the app: later pushes fail without a request")
    func authFailureStopsApp() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        #expect(await router.send(alert(to: token("0403"))) == .authFailure(reason: "Forbidden"))
        #expect(router.client(for: APNsHarness.bundleID)?.stopped == "Forbidden")
        #expect(await router.send(alert(to: token("a1", 3))) == .authFailure(reason: "Forbidden"))
        #expect(await harness.mock.counters().requests == 1)
        #expect(harness.logs.all.filter { $0.level == .critical }.count == 1, "the stop is logged once, at critical level")
        try await harness.stop(router)
    }

    @Test("a key APNs does not know is an auth failure (InvalidProviderToken)")
    func unknownKey() async throws {
        let harness = try await APNsHarness.start()
        let stranger = APNsSigningKey(privateKey: .init(), keyID: harness.key.keyID, teamID: harness.key.teamID)
        let router = try harness.router([harness.app(key: stranger)])
        #expect(await router.send(alert(to: token("a1", 4))) == .authFailure(reason: "InvalidProviderToken"))
        try await harness.stop(router)
    }

    @Test(
        "429, 500 and 503 are retried with growing, jittered backoff, then a temporary failure",
        arguments: [
            ("0429", "TooManyRequests"), ("0500", "InternalServerError"), ("0503", "ServiceUnavailable"),
        ])
    func temporaryFailures(prefix: String, reason: String) async throws {
        let harness = try await APNsHarness.start()
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 4
        retry.initialBackoff = .milliseconds(100)
        let router = try harness.router(retry: retry)
        #expect(await router.send(alert(to: token(prefix))) == .temporaryFailure(reason: reason))
        #expect(await harness.mock.counters().requests == 4)
        // random() is 0.5 here: each delay is three quarters of 100 ms · 2^(n-1).
        #expect(harness.sleeper.recorded == [.milliseconds(75), .milliseconds(150), .milliseconds(300)])
        try await harness.stop(router)
    }

    @Test("a temporary failure followed by success is delivered once")
    func flakyThenDelivered() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let push = alert(to: token("0f1a"))
        #expect(await router.send(push) == .delivered(messageID: push.messageID))
        #expect(await harness.mock.deliveries().map(\.messageID) == [push.messageID])
        #expect(harness.sleeper.recorded.count == 1)
        try await harness.stop(router)
    }

    @Test("a request that outlives its deadline is a temporary failure after the retries")
    func timeout() async throws {
        // The answer comes long after the deadline even when a loaded test process stalls the
        // client for many seconds (a whole-suite run once took this test 59 s): an answer read
        // before the client's next deadline check would count as delivered.
        let harness = try await APNsHarness.start { $0.latency = .seconds(120) }
        var settings = APNsHarness.settings
        settings.requestTimeout = .milliseconds(200)
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 2
        let router = try harness.router(retry: retry, settings: settings)
        let outcome = await router.send(alert(to: token("a1", 5)))
        #expect(outcome == .temporaryFailure(reason: "timeout"))
        #expect(harness.sleeper.recorded.count == 1)
        try await harness.stop(router)
    }

    @Test("a gateway that refuses connections is a temporary failure after the retries")
    func connectionRefused() async throws {
        let harness = try await APNsHarness.start()
        var app = harness.app()
        app.customEndpoint = APNsEndpoint(host: "127.0.0.1", port: harness.mock.port)
        var retry = PushRetryPolicy()
        retry.maximumAttempts = 3
        // The router reads the mock's certificate when made; stopping the mock removes it.
        let router = try harness.router([app], retry: retry)
        try await harness.mock.stop()
        let outcome = await router.send(alert(to: token("a1", 6)))
        guard case .temporaryFailure = outcome else {
            Issue.record("expected a temporary failure, got \(outcome)")
            return
        }
        #expect(harness.sleeper.recorded.count == 2)
        await router.shutdown()
    }
}
