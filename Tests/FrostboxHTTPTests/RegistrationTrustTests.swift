import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Which registrations a server takes (issue #43): only devices it can push to, a token's
/// platform fixed, and a path naming exactly the device it names.
@Suite("Registration trust")
struct RegistrationTrustTests {
    static let iosOnly = PushReach([.ios: .apps(["fi.example.frost"], defaultApp: "fi.example.frost"), .android: .notConfigured])
    static let androidTwoApps = PushReach([.ios: .notConfigured, .android: .apps(["fi.example.a", "fi.example.b"], defaultApp: nil)])
    let ios = "0123456789abcdef0123456789abcdef"
    let android = "fJ3kX9Qr:APA91bH_q-1Zx"

    func run(
        reach: PushReach, store: InMemorySubscriptionStore = .init(), _ body: @Sendable (any TestClientProtocol) async throws -> Void
    )
        async throws
    {
        let api = FrostboxAPI(groups: [DeviceRoutes(store: store, clock: { 1_000 }, verifiesDevices: true, reach: reach).add(to:)])
        try await Application(router: api.makeRouter(), logger: Logger(label: "test")).test(.router, body)
    }

    @Test("a platform without an app refuses new devices with 409 platform_not_configured, on every route that registers")
    func platformNotConfigured() async throws {
        let store = InMemorySubscriptionStore()
        try await run(reach: Self.iosOnly, store: store) { client in
            let put = try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android"}"#)
            #expect(put.status == .conflict && put.errorCode == "platform_not_configured")
            let legacy = try await client.send(.post, "/register", json: #"{"token": "\#(android)", "platform": "android"}"#)
            #expect(legacy.status == .conflict && legacy.errorCode == "platform_not_configured")
            let subscribe = try await client.send(
                .post, "/v1/devices/\(android)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribe.status == .conflict && subscribe.errorCode == "platform_not_configured")
            let add = try await client.send(
                .post, "/add_location",
                json: #"{"token": "\#(android)", "platform": "android", "location": {"latitude": 60.19, "longitude": 25.01, "name": "Home"}}"#)
            #expect(add.status == .conflict && add.errorCode == "platform_not_configured")
            #expect(try await client.send(.put, "/v1/devices/\(ios)", json: "{}").status == .created)
        }
        #expect(store.deviceCount == 1)
    }

    @Test("with no push app at all (log-only, the demo) every platform and app is taken")
    func logOnlyTakesEverything() async throws {
        try await run(reach: .logOnly) { client in
            let android = try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android", "app": "x.y"}"#)
            let ios = try await client.send(.put, "/v1/devices/\(ios)", json: #"{"app": "any.app"}"#)
            #expect(android.status == .created && ios.status == .created)
        }
    }

    @Test("an app no configured app matches is refused with 400 naming how many apps are configured, not which")
    func unknownApp() async throws {
        try await run(reach: Self.androidTwoApps) { client in
            let unknown = try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android", "app": "com.evil"}"#)
            #expect(unknown.status == .badRequest && unknown.errorCode == "unknown_app")
            let message = (unknown.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("2 android apps") && !message.contains("fi.example"))
            let missing = try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android"}"#)
            #expect(missing.status == .badRequest && missing.errorCode == "app_required")
            let known = try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android", "app": "fi.example.b"}"#)
            #expect(known.status == .created)
            // Registered again without an app, the stored app counts.
            #expect(try await client.send(.put, "/v1/devices/\(android)", json: #"{"platform": "android"}"#).status == .ok)
        }
    }

    @Test("a token's platform is fixed: registering it as the other platform is 409 platform_mismatch and changes nothing")
    func platformMismatch() async throws {
        let store = InMemorySubscriptionStore()
        let hex = "00112233445566778899aabbccddeeff"
        try await run(reach: .logOnly, store: store) { client in
            #expect(try await client.send(.put, "/v1/devices/\(hex)", json: "{}").status == .created)
            let switched = try await client.send(.put, "/v1/devices/\(hex)", json: #"{"platform": "android"}"#)
            #expect(switched.status == .conflict && switched.errorCode == "platform_mismatch")
            let read = try await client.send(.get, "/v1/devices/\(hex)")
            #expect(read.json["platform"] as? String == "ios")
        }
    }

    @Test("case variants of an all-hex Android token reach the Android device, never the iOS device of the lower-case form")
    func caseVariants() async throws {
        let store = InMemorySubscriptionStore()
        let lower = "0123456789abcdef0123456789abcdef"
        let upper = lower.uppercased()
        try await run(reach: .logOnly, store: store) { client in
            #expect(try await client.send(.put, "/v1/devices/\(lower)", json: "{}").status == .created)
            #expect(try await client.send(.put, "/v1/devices/\(upper)", json: #"{"platform": "android"}"#).status == .created)
            let subscribed = try await client.send(
                .post, "/v1/devices/\(upper)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Cabin"}"#)
            #expect(subscribed.status == .created)
            #expect(try await client.send(.get, "/v1/devices/\(upper)").json["platform"] as? String == "android")
            #expect(try await client.send(.delete, "/v1/devices/\(upper)").status == .noContent)
            let ios = try await client.send(.get, "/v1/devices/\(lower)")
            #expect(ios.status == .ok && ios.json["platform"] as? String == "ios")
        }
        #expect(try await store.subscriptions(of: DeviceToken(trusted: lower)).isEmpty)
        #expect(try await store.device(DeviceToken(trusted: upper)) == nil)
    }
}
