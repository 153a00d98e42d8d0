import Foundation
import FrostboxCore
import NIOCore
import NIOHPACK
import Synchronization

/// A push turned into the parts of its HTTP/2 request, validated as APNs would validate
/// it, before anything is sent. Built once per push; every attempt resends the same bytes.
struct APNsRequest: Sendable {
    /// Largest payload APNs accepts for alerts and background pushes.
    static let maximumPayloadSize = 4096
    /// Largest `apns-collapse-id`, in bytes.
    static let maximumCollapseIDSize = 64

    let path: String
    /// The regular header fields but `authorization` (which each attempt adds) and
    /// `content-length` (which the transport adds); the pseudo-header fields are the transport's.
    let fields: HPACKHeaders
    let body: ByteBuffer

    /// The request, or the outcome that refuses it without sending. `payloads` encodes each
    /// distinct payload once.
    static func make(_ notification: PushNotification, topic: String, payloads: APNsPayloadEncoder) -> Result<APNsRequest, Refusal> {
        if let collapseID = notification.collapseID, collapseID.utf8.count > maximumCollapseIDSize || collapseID.isEmpty {
            return .failure(Refusal(status: 400, reason: "BadCollapseId"))
        }
        guard isUUID(notification.messageID) else {
            return .failure(Refusal(status: 400, reason: "BadMessageId"))
        }
        if let expiration = notification.expiration, expiration < 0 {
            return .failure(Refusal(status: 400, reason: "BadExpirationDate"))
        }
        // A verification push is APNs' background push: no alert, no sound, no badge; the app
        // may be woken silently. APNs still checks the token (BadDeviceToken, Unregistered, …).
        let verification = notification.purpose == .verification
        guard let payload = verification ? Self.backgroundPayload : payloads.encode(notification.content) else {
            return .failure(Refusal(status: 400, reason: "PayloadEmpty"))
        }
        guard payload.readableBytes <= maximumPayloadSize else {
            return .failure(Refusal(status: 413, reason: "PayloadTooLarge"))
        }

        var fields = HPACKHeaders()
        fields.reserveCapacity(10)
        fields.add(name: "apns-topic", value: topic)
        // Background pushes must be sent with priority 5 (APNs refuses 10 for them).
        fields.add(name: "apns-push-type", value: verification ? "background" : "alert")
        fields.add(name: "apns-priority", value: verification ? "5" : String(notification.priority.rawValue))
        // Unique per push: kept out of the HPACK dynamic table, which would only churn.
        fields.add(name: "apns-id", value: notification.messageID, indexing: .nonIndexable)
        if let expiration = notification.expiration {
            fields.add(name: "apns-expiration", value: String(expiration))
        }
        if let collapseID = notification.collapseID, !verification {
            fields.add(name: "apns-collapse-id", value: collapseID)
        }
        fields.add(name: "content-type", value: "application/json")
        return .success(APNsRequest(path: "/3/device/" + notification.token.value, fields: fields, body: payload))
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hex form, either case (what APNs takes as
    /// `apns-id`; what `UUID(uuidString:)` accepts, without its `sscanf`, once per push).
    static func isUUID(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) else { return false }
            }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
    }

    /// The whole payload of a background push.
    static let backgroundPayload: ByteBuffer? = ByteBuffer(string: #"{"aps":{"content-available":1}}"#)

    /// A push refused locally, with the status and reason APNs would have answered.
    struct Refusal: Error, Sendable {
        let status: Int
        let reason: String
    }

}

/// Encodes alert contents to APNs payload JSON once each: the alerts of one box, night and
/// level that name the same places in the same unit are one content, so thousands of pushes
/// share one encoding.
/// Bounded: when `capacity` distinct payloads are held, the cache starts over.
final class APNsPayloadEncoder: Sendable {
    private let cache = Mutex<[AlertContent: ByteBuffer]>([:])
    let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The payload's JSON (sorted keys, so the same push is the same bytes on every attempt
    /// and every run), or nil when it cannot be encoded.
    func encode(_ content: AlertContent) -> ByteBuffer? {
        if let bytes = cache.withLock({ $0[content] }) { return bytes }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(APNsPayload(content)) else { return nil }
        let bytes = ByteBuffer(bytes: data)
        cache.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[content] = bytes
        }
        return bytes
    }

    /// Distinct payloads held now.
    var count: Int { cache.withLock { $0.count } }
}

/// An APNs error body: `{"reason": "...", "timestamp": 1700000000000}`.
struct APNsErrorBody: Decodable, Sendable {
    var reason: String?
    /// For 410: when the token stopped being valid, UTC epoch milliseconds.
    var timestamp: Int64?

    init(reason: String? = nil, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey { case reason, timestamp }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reason = try? container.decodeIfPresent(String.self, forKey: .reason)
        if let millis = try? container.decodeIfPresent(Int64.self, forKey: .timestamp) {
            timestamp = millis
        } else if let millis = try? container.decodeIfPresent(Double.self, forKey: .timestamp) {
            timestamp = Int64(millis)
        }
    }

    static func parse(_ body: ByteBuffer?) -> APNsErrorBody {
        guard let body, body.readableBytes > 0 else { return APNsErrorBody() }
        return (try? JSONDecoder().decode(APNsErrorBody.self, from: Data(body.readableBytesView))) ?? APNsErrorBody()
    }
}

/// What a gateway's answer means for the push.
enum APNsVerdict: Sendable, Equatable {
    /// Final: report this outcome.
    case final(PushOutcome)
    /// 403 ExpiredProviderToken: renew the token and retry once.
    case expiredProviderToken
    /// 429, 5xx: retry after a backoff.
    case temporary(String)

    /// Apple's status table (HTTP/2 provider API, "Handling notification responses").
    static func judge(status: Int, messageID: String?, body: ByteBuffer?, sentID: String) -> APNsVerdict {
        if status == 200 {
            return .final(.delivered(messageID: messageID ?? sentID))
        }
        let error = APNsErrorBody.parse(body)
        let reason = error.reason ?? "HTTP \(status)"
        switch status {
        case 410:
            return .final(.invalidToken(reason: reason, unregisteredAtMilliseconds: error.timestamp))
        case 400 where reason == "BadDeviceToken":
            return .final(.invalidToken(reason: reason, unregisteredAtMilliseconds: nil))
        case 403 where reason == "ExpiredProviderToken":
            return .expiredProviderToken
        case 403:
            return .final(.authFailure(reason: reason))
        case 429, 500...599:
            return .temporary(reason)
        default:
            return .final(.permanentFailure(status: status, reason: reason))
        }
    }
}
