import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// Browsers register their push subscription (issue #46): `POST /v1/devices` answers the
/// device id every later call names; the endpoint's push service must be allowed; the keys
/// never come back.
@Suite("Web device routes")
struct WebDeviceRoutesTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    /// Allows one origin and refuses the rest, as the real guard does (its own tests cover
    /// the allow-list and addresses).
    struct OneOrigin: WebPushAdmission {
        let origin: String
        func admit(_ subscription: WebPushSubscription) async throws(ValidationError) {
            guard subscription.endpoint.origin == origin else {
                throw ValidationError(.endpointNotAllowed, field: "endpoint", "endpoint's push service is not one this server sends to")
            }
        }
    }

    static func body(endpoint: String = "https://fcm.googleapis.com/fcm/send/abc", p256dh: String = p256dh, extra: String = "") -> String {
        #"{"platform": "web", "subscription": {"endpoint": "\#(endpoint)", "expirationTime": null, "keys": {"p256dh": "\#(p256dh)", "auth": "\#(auth)"}}\#(extra)}"#
    }

    func run(
        store: InMemorySubscriptionStore = .init(), publicKeys: [String: String] = ["garden": "BPUBLIC"], reach: PushReach = .logOnly,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let counter = Mutex<UInt8>(0)
        let web = WebPushRegistration(
            admission: OneOrigin(origin: "https://fcm.googleapis.com"), publicKeys: publicKeys, defaultApp: nil,
            newID: {
                DeviceToken.webID(
                    random: Array(
                        repeating: counter.withLock {
                            $0 += 1
                            return $0
                        }, count: 16))
            })
        let api = FrostboxAPI(groups: [DeviceRoutes(store: store, clock: { 1_000 }, verifiesDevices: true, reach: reach, webPush: web).add(to:)])
        try await Application(router: api.makeRouter(), logger: Logger(label: "test")).test(.router, body)
    }

    @Test("a subscription registers a browser: 201 with its device id and push service origin, never the keys; again, 200 and the same id")
    func registers() async throws {
        let store = InMemorySubscriptionStore()
        try await run(store: store) { client in
            let first = try await client.send(
                .post, "/v1/devices", json: Self.body(extra: #", "locale": "fi-FI", "quiet_hours": {"start": "22:00", "end": "07:00"}"#))
            #expect(first.status == .created)
            let id = try #require(first.json["device_id"] as? String)
            #expect(id.hasPrefix("web:") && first.json["token"] as? String == id && first.json["platform"] as? String == "web")
            #expect(first.json["endpoint_origin"] as? String == "https://fcm.googleapis.com" && first.json["locale"] as? String == "fi-FI")
            #expect(first.json["verification"] as? String == "pending")
            #expect(
                !String(buffer: first.body).contains(Self.p256dh) && !String(buffer: first.body).contains(Self.auth)
                    && !String(buffer: first.body).contains("/fcm/send/abc"))

            let again = try await client.send(.post, "/v1/devices", json: Self.body())
            #expect(again.status == .ok && again.json["device_id"] as? String == id)

            let read = try await client.send(.get, "/v1/devices/\(id)")
            #expect(read.status == .ok && read.json["endpoint_origin"] as? String == "https://fcm.googleapis.com")
            let subscribe = try await client.send(.post, "/v1/devices/\(id)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribe.status == .created)
            let settings = try await client.send(.put, "/v1/devices/\(id)", json: #"{"locale": "sv-FI"}"#)
            #expect(settings.status == .ok && settings.json["locale"] as? String == "sv-FI" && settings.json["platform"] as? String == "web")
            #expect(try await client.send(.delete, "/v1/devices/\(id)").status == .noContent)
        }
        #expect(store.deviceCount == 0)
    }

    @Test(
        "a bad registration is a 400 naming the field, and stores nothing",
        arguments: [
            (body(endpoint: "http://fcm.googleapis.com/x"), "invalid_field", "subscription.endpoint"),
            (body(endpoint: "https://push.evil.example/x"), "endpoint_not_allowed", "subscription.endpoint"),
            (body(p256dh: "AAAA"), "invalid_field", "subscription.keys.p256dh"),
            (body().replacingOccurrences(of: #""platform": "web""#, with: #""platform": "ios""#), "invalid_field", "platform"),
            (body(extra: #", "environment": "sandbox""#), "unknown_field", nil),
            (body().replacingOccurrences(of: #""expirationTime""#, with: #""expiry""#), "unknown_field", nil),
            (#"{"platform": "web"}"#, "missing_field", nil),
        ])
    func refused(json: String, code: String, field: String?) async throws {
        let store = InMemorySubscriptionStore()
        try await run(store: store) { client in
            let response = try await client.send(.post, "/v1/devices", json: json)
            #expect(response.status == .badRequest && response.errorCode == code, "\(String(buffer: response.body))")
            let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
            if let field { #expect(message.contains(field), "the message names \(field): \(message)") }
        }
        #expect(store.deviceCount == 0)
    }

    @Test("a browser id no registration gave: its subscriptions and settings are 404 unknown_device, nothing stored")
    func unknownID() async throws {
        let store = InMemorySubscriptionStore()
        let id = DeviceToken.webID(random: Array(repeating: 7, count: 16)).value
        try await run(store: store) { client in
            let subscribe = try await client.send(.post, "/v1/devices/\(id)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribe.status == .notFound && subscribe.errorCode == "unknown_device")
            let put = try await client.send(.put, "/v1/devices/\(id)", json: #"{"locale": "fi-FI"}"#)
            #expect(put.status == .notFound && put.errorCode == "unknown_device")
            let legacy = try await client.send(.post, "/register", json: #"{"token": "\#(id)", "platform": "web"}"#)
            #expect(legacy.status == .badRequest && legacy.errorCode == "invalid_field", "the existing app's routes stay iOS and Android")
        }
        #expect(store.deviceCount == 0)
    }

    @Test(
        "with two Web Push apps and no default: a new browser must name its app; registered again without one, it keeps the app it has; an unknown browser id is 404"
    )
    func appOfARegisteredBrowser() async throws {
        let store = InMemorySubscriptionStore()
        let reach = PushReach([.web: .apps(["garden", "allotment"], defaultApp: nil)])
        try await run(store: store, publicKeys: ["garden": "BPUBLIC", "allotment": "BOTHER"], reach: reach) { client in
            let unnamed = try await client.send(.post, "/v1/devices", json: Self.body())
            #expect(unnamed.status == .badRequest && unnamed.errorCode == "app_required")
            #expect(store.deviceCount == 0, "nothing stored on the way")
            let named = try await client.send(.post, "/v1/devices", json: Self.body(extra: #", "app": "allotment""#))
            #expect(named.status == .created && named.json["app"] as? String == "allotment")
            let again = try await client.send(.post, "/v1/devices", json: Self.body())
            #expect(again.status == .ok && again.json["device_id"] as? String == named.json["device_id"] as? String)
            #expect(again.json["app"] as? String == "allotment", "\(String(buffer: again.body))")
            let unknown = try await client.send(.post, "/v1/devices", json: Self.body(extra: #", "app": "orchard""#))
            #expect(unknown.status == .badRequest && unknown.errorCode == "unknown_app")
            // A browser id no registration gave is unknown: no app could make it known.
            let stranger = DeviceToken.webID(random: Array(repeating: 9, count: 16)).value
            let subscribe = try await client.send(
                .post, "/v1/devices/\(stranger)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribe.status == .notFound && subscribe.errorCode == "unknown_device", "\(String(buffer: subscribe.body))")
            let put = try await client.send(.put, "/v1/devices/\(stranger)")
            #expect(put.status == .notFound && put.errorCode == "unknown_device", "\(String(buffer: put.body))")
        }
    }

    @Test("the VAPID public key for the page's applicationServerKey: the one app's, or 404 when there is none")
    func publicKey() async throws {
        try await run { client in
            let response = try await client.send(.get, "/v1/web-push/public-key")
            #expect(response.status == .ok && response.json["public_key"] as? String == "BPUBLIC" && response.json["app"] as? String == "garden")
            let unknown = try await client.send(.get, "/v1/web-push/public-key?app=other")
            #expect(unknown.status == .notFound && unknown.errorCode == "unknown_app")
        }
        try await run(publicKeys: [:]) { client in
            let none = try await client.send(.get, "/v1/web-push/public-key")
            #expect(none.status == .notFound && none.errorCode == "web_push_not_configured")
        }
    }
}
