import Foundation
import FrostboxCore
import FrostboxPushEngine
import MockAPNs
import Testing

@testable import FrostboxAPNs

@Suite("APNs requests: limits checked before sending, routing, settings")
struct APNsRequestTests {
    /// A push whose payload encodes to exactly `size` bytes.
    private func push(ofPayloadSize size: Int) throws -> PushNotification {
        var push = alert(to: token("a1", size), body: "")
        let base = try #require(APNsPayloadEncoder().encode(push.content)).readableBytes
        push.content.body = String(repeating: "x", count: size - base)
        #expect(APNsPayloadEncoder().encode(push.content)?.readableBytes == size)
        return push
    }

    @Test("a 4,096-byte payload is sent; 4,097 bytes is refused before sending")
    func payloadLimit() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let fits = try push(ofPayloadSize: 4096)
        #expect(await router.send(fits) == .delivered(messageID: fits.messageID))
        #expect(await router.send(try push(ofPayloadSize: 4097)) == .permanentFailure(status: 413, reason: "PayloadTooLarge"))
        #expect(await harness.mock.counters().requests == 1)
        try await harness.stop(router)
    }

    @Test("collapse id: 64 bytes are sent, 65 refused before sending; a non-UUID apns-id is refused")
    func headerLimits() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let fits = alert(to: token("a1", 1), collapseID: String(repeating: "c", count: 64))
        #expect(await router.send(fits) == .delivered(messageID: fits.messageID))
        #expect(
            await router.send(alert(to: token("a1", 2), collapseID: String(repeating: "c", count: 65)))
                == .permanentFailure(status: 400, reason: "BadCollapseId"))
        var badID = alert(to: token("a1", 3))
        badID.messageID = "not-a-uuid"
        #expect(await router.send(badID) == .permanentFailure(status: 400, reason: "BadMessageId"))
        #expect(await harness.mock.counters().requests == 1)
        try await harness.stop(router)
    }

    @Test("apns-id: the 8-4-4-4-12 hex form is taken in either case, exactly what UUID(uuidString:) takes")
    func messageIDForm() {
        let good = ["2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3d", "2B1F0D1A-7C1E-4C8A-9A54-0A6A6C1F2E3D", UUID().uuidString]
        let bad = [
            "", "42", "2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3", "2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3d0", "2b1f0d1a7c1e-4c8a-9a54-0a6a6c1f2e3d-",
            "2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3g", "2b1f0d1a-7c1e-4c8a-9a54_0a6a6c1f2e3d", "2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3 ",
            "{2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3d}", "2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3é",
        ]
        for text in good + bad {
            #expect(APNsRequest.isUUID(text) == (UUID(uuidString: text) != nil), "\(text)")
        }
        #expect(good.allSatisfy(APNsRequest.isUUID))
        #expect(!bad.contains(where: APNsRequest.isUUID))
    }

    @Test("the router picks the app by topic, the default app for none, and refuses unknown topics")
    func routing() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router(
            [harness.app(), harness.app(APNsHarness.otherBundleID)], defaultBundleID: APNsHarness.otherBundleID)
        #expect(router.bundleIDs == [APNsHarness.bundleID, APNsHarness.otherBundleID])
        _ = await router.send(alert(to: token("a1", 1), topic: nil))
        _ = await router.send(alert(to: token("a1", 2), topic: APNsHarness.bundleID))
        #expect(
            await router.send(alert(to: token("a1", 3), topic: "com.example.unknown"))
                == .permanentFailure(status: 400, reason: "TopicDisallowed"))
        #expect(await harness.mock.deliveries().map(\.topic) == [APNsHarness.otherBundleID, APNsHarness.bundleID])
        #expect(throws: APNsConfigurationError.self) {
            try harness.router([harness.app()], defaultBundleID: "com.example.unknown")
        }
        #expect(throws: APNsConfigurationError.self) { try harness.router([harness.app(), harness.app()]) }
        try await harness.stop(router)
    }

    @Test("endpoints: Apple's gateways per environment, host:port parsing")
    func endpoints() {
        #expect(APNsEndpoint.apple(.production).description == "api.push.apple.com:443")
        #expect(APNsEndpoint.apple(.sandbox).description == "api.sandbox.push.apple.com:443")
        #expect(APNsEndpoint(parsing: "127.0.0.1:8443") == APNsEndpoint(host: "127.0.0.1", port: 8443))
        #expect(APNsEndpoint(parsing: "api.push.apple.com") == .production)
        #expect(APNsEndpoint(parsing: "[::1]:2197") == APNsEndpoint(host: "::1", port: 2197))
        #expect(APNsEndpoint(parsing: "host:0") == nil)
        #expect(APNsEndpoint(parsing: "host:x") == nil)
        #expect(APNsEndpoint(parsing: "") == nil)
        let app = APNsAppSettings(
            bundleID: "a.b", credentials: .token(.init(privateKey: .init(), keyID: "K", teamID: "T")), environment: .sandbox)
        #expect(app.endpoint(for: nil) == .sandbox)
        #expect(app.endpoint(for: .production) == .production)
    }

    @Test("backoff doubles from the initial delay, is capped, and jitters within its upper half")
    func backoff() {
        var policy = PushRetryPolicy()
        policy.initialBackoff = .milliseconds(200)
        policy.maximumBackoff = .seconds(1)
        #expect(policy.backoff(beforeRetry: 1, random: 0) == .milliseconds(100))
        #expect(policy.backoff(beforeRetry: 1, random: 1) == .milliseconds(200))
        #expect(policy.backoff(beforeRetry: 2, random: 0) == .milliseconds(200))
        #expect(policy.backoff(beforeRetry: 3, random: 0.5) == .milliseconds(600))
        #expect(policy.backoff(beforeRetry: 10, random: 1) == .seconds(1))
        #expect(policy.backoff(beforeRetry: 60, random: 0) == .milliseconds(500))
    }
}
