import FrostboxCore
import Testing

@Suite("Web Push subscriptions and browser ids")
struct WebPushSubscriptionTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    @Test(
        "an https endpoint's origin, host, port and path, and its URL in one spelling (scheme and host lower case, no :443)",
        arguments: [
            ("https://fcm.googleapis.com/fcm/send/abc:def", "https://fcm.googleapis.com", "fcm.googleapis.com", 443, "/fcm/send/abc:def"),
            (
                "HTTPS://Updates.Push.Services.Mozilla.com/wpush/v2/X", "https://updates.push.services.mozilla.com", "updates.push.services.mozilla.com", 443,
                "/wpush/v2/X"
            ),
            ("https://push.example.org:8443/p?x=1", "https://push.example.org:8443", "push.example.org", 8443, "/p?x=1"),
            ("https://Push.Example.org:443?x=1", "https://push.example.org", "push.example.org", 443, "/?x=1"),
            ("https://[::1]:9000/p", "https://[::1]:9000", "::1", 9000, "/p"),
            ("https://127.0.0.1", "https://127.0.0.1", "127.0.0.1", 443, "/"),
        ])
    func endpoint(raw: String, origin: String, host: String, port: Int, path: String) throws {
        let endpoint = try WebPushEndpoint(raw)
        #expect(endpoint.origin == origin && endpoint.host == host && endpoint.port == port && endpoint.path == path)
        #expect(endpoint.url == origin + path)
        #expect(endpoint.description.hasPrefix(origin + "/#") && endpoint.description.count == origin.count + 10, "a log shows the origin and a hash")
    }

    @Test(
        "not an https push service URL: refused naming the endpoint",
        arguments: [
            "http://fcm.googleapis.com/x", "https://", "https:///x", "https://user@fcm.googleapis.com/x", "https://fcm.googleapis.com:0/x",
            "https://fcm.googleapis.com:70000/x", "https://fcm.googleapis.com/x#frag", "https://fcm goog.com/x", "ftp://x/y",
            "https://a_b.com/x", "https://" + String(repeating: "a", count: 2_100), "https://.push.apple.com/x", "https://push..apple.com/x",
            "https://-.push.apple.com/x", "https://push-.apple.com/x", "https://fcm.googleapis.com./x", "https://fcm.googleapis.com:+443/x",
            "https://" + String(repeating: "a", count: 64) + ".push.apple.com/x",
        ])
    func endpointRefused(raw: String) {
        #expect(throws: ValidationError.self) { try WebPushEndpoint(raw) }
        #expect((try? WebPushEndpoint(raw)) == nil)
    }

    @Test("keys: p256dh a 65-byte uncompressed point, auth 16 bytes, both kept as canonical base64url")
    func keys() throws {
        let subscription = try WebPushSubscription(endpoint: "https://fcm.googleapis.com/x", p256dh: Self.p256dh + "=", auth: Self.auth + "==")
        #expect(subscription.p256dh == Self.p256dh && subscription.auth == Self.auth)
        for (p256dh, auth, field) in [
            (String(Self.p256dh.dropLast(2)), Self.auth, "keys.p256dh"), ("A" + Self.p256dh.dropFirst(), Self.auth, "keys.p256dh"),
            (Self.p256dh, String(Self.auth.dropLast(3)), "keys.auth"), (Self.p256dh, Self.auth + "AAAA", "keys.auth"),
            (Self.p256dh, "!!", "keys.auth"),
        ] {
            #expect(throws: ValidationError.self) { try WebPushSubscription(endpoint: "https://fcm.googleapis.com/x", p256dh: p256dh, auth: auth) }
            do {
                _ = try WebPushSubscription(endpoint: "https://fcm.googleapis.com/x", p256dh: p256dh, auth: auth)
            } catch {
                #expect(error.field == field)
            }
        }
    }

    @Test("a browser id is web: and 22 base64url characters; its form says web, and it is no Android token")
    func webID() throws {
        let id = DeviceToken.webID(random: Array(0..<16))
        #expect(id.value == "web:AAECAwQFBgcICQoLDA0ODw" && id.formPlatform == .web)
        #expect(try DeviceToken(id.value) == id)
        #expect(try DeviceToken(id.value, platform: .web) == id)
        #expect(throws: ValidationError.self) { try DeviceToken(id.value, platform: .android) }
        #expect(throws: ValidationError.self) { try DeviceToken("web:short", platform: .web) }
        #expect(throws: ValidationError.self) { try DeviceToken("00112233445566778899aabbccddeeff", platform: .web) }
        #expect(DeviceToken(trusted: "web:abc").formPlatform == .android, "only the exact form is a browser's")
    }
}
