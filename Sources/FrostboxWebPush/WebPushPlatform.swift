import Crypto
import FrostboxCore
import FrostboxPushEngine
import NIOCore
import NIOHPACK

/// What Web Push adds to the push engine for one app: each message encrypted to its browser's
/// keys (RFC 8291) with the RFC 8030 headers, authorized by the app's VAPID token for the push
/// service's origin (RFC 8292), sent through that push service's gateway; and the answers'
/// meaning. No credential is fetched: a token is signed per origin as requests are made.
package struct WebPushPlatform: PushPlatform {
    package typealias Credential = Never

    /// The app's name.
    package let app: String
    private let tokens: VAPIDTokenCache
    private let gateways: WebPushGateways
    private let clock: @Sendable () -> Int64
    private let ttlWatch: WebPushTTLWatch?
    private let payloads = WebPushPayloadTemplates()
    private let senderKeys = WebPushSenderKeys()

    /// Time to live of a push without an expiry: a day.
    static let defaultTTL: Int64 = 86_400

    package init(app: WebPushApp, gateways: WebPushGateways, clock: @escaping @Sendable () -> Int64, ttlWatch: WebPushTTLWatch? = nil) {
        self.app = app.name
        self.ttlWatch = ttlWatch
        self.tokens = VAPIDTokenCache(key: app.key, subject: app.subject, clock: clock)
        self.gateways = gateways
        self.clock = clock
    }

    package var name: String { "Web Push" }
    package var logMetadata: (key: String, value: String) { ("webpush.app", app) }
    package var credentialsHint: String { "the VAPID key and subject are fixed (webpush.apps.\(app).vapid_key_path, subject)" }

    package func prepare(_ notification: PushNotification) -> Result<PushRequest, PushRefusal> {
        guard let subscription = notification.webPush else {
            return .failure(PushRefusal(.invalidToken(reason: "NotRegistered", unregisteredAtMilliseconds: nil)))
        }
        let gateway: HTTP2Gateway
        switch gateways.gateway(for: subscription.endpoint) {
        case .success(let found): gateway = found
        case .failure(let refusal): return .failure(refusal)
        }
        let body: [UInt8]
        let topic: String?
        let token: VAPIDToken
        do throws(WebPushEncryptionError) {
            let keys = try WebPushSubscriberKeys(p256dh: subscription.p256dh, auth: subscription.auth)
            let parts = payloads.parts(notification)
            topic = parts.topic
            body = try WebPushEncryption.encrypt(parts.plaintext, for: keys, senderKeys: senderKeys)
            token = try tokens.token(for: subscription.endpoint.origin)
        } catch {
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: "NotEncrypted: \(error)")))
        }
        return .success(
            PushRequest(
                gateway: gateway, path: subscription.endpoint.path, fields: Self.fields(notification, topic: topic, token: token, now: clock()),
                body: ByteBuffer(bytes: body)))
    }

    /// The RFC 8030 and 8291 header fields, and the VAPID authorization. `topic`: the
    /// collapse id's (`topic(_:)`), made once per alert by the payload templates.
    static func fields(_ notification: PushNotification, topic: String?, token: VAPIDToken, now: Int64) -> HPACKHeaders {
        var fields = HPACKHeaders()
        fields.reserveCapacity(6)
        fields.add(name: "content-type", value: "application/octet-stream")
        fields.add(name: "content-encoding", value: "aes128gcm")
        fields.add(name: "ttl", value: String(notification.expiration.map { max(0, $0 - now) } ?? defaultTTL))
        // Alerts wake the device; all-clears and confirmations may wait for it.
        fields.add(name: "urgency", value: notification.purpose == .alert && notification.priority == .immediate ? "high" : "normal")
        if let topic { fields.add(name: "topic", value: topic) }
        // Indexed, as the engine indexes the other platforms' tokens: one VAPID token per push
        // service for hours, on connections to that service alone, so after the first request
        // it costs a byte or two instead of ~300 Huffman-coded bytes a push (a high-entropy
        // value that nothing an attacker sends shares a compression context with).
        fields.add(name: "authorization", value: token.authorization)
        return fields
    }

    /// A push's `Topic`: a newer message with the same topic replaces an undelivered older
    /// one. At most 32 base64url characters (RFC 8030 §5.4), so the collapse id's SHA-256,
    /// cut to 24 bytes.
    static func topic(_ collapseID: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(collapseID.utf8))).prefix(24))
    }

    package func credential() async -> PushCredential<Never> { .ready(nil) }

    package func renew(rejected: Never) async -> PushCredential<Never> {}

    package func authorization(_ credential: Never?) -> String? { nil }

    /// `header` is a success's `TTL` (what a push service answers a push it accepted, RFC 8030
    /// §5.2) and any other answer's `Retry-After` (`WebPushGateways`).
    package func judge(status: Int, header: String?, body: ByteBuffer?, for notification: PushNotification) -> PushVerdict {
        if status == 201, let ttlWatch, let origin = notification.webPush?.endpoint.origin {
            ttlWatch.note(origin: origin, asked: notification.expiration.map { $0 - clock() } ?? Self.defaultTTL, answered: header)
            return WebPushVerdict.judge(status: status, retryAfter: nil, body: body, messageID: notification.messageID)
        }
        return WebPushVerdict.judge(status: status, retryAfter: header, body: body, messageID: notification.messageID)
    }
}
