import Foundation
import FrostboxCore
import NIOCore
import NIOHTTP1

/// A push turned into the parts of its HTTP/2 request, validated as APNs would validate
/// it, before anything is sent. Built once per push; every attempt resends the same bytes.
struct APNsRequest: Sendable {
    /// Largest payload APNs accepts for alerts and background pushes.
    static let maximumPayloadSize = 4096
    /// Largest `apns-collapse-id`, in bytes.
    static let maximumCollapseIDSize = 64

    let path: String
    /// Every header but `authorization`, which each attempt adds.
    let headers: HTTPHeaders
    let body: ByteBuffer

    /// The request, or the outcome that refuses it without sending.
    static func make(_ notification: PushNotification, topic: String) -> Result<APNsRequest, Refusal> {
        if let collapseID = notification.collapseID, collapseID.utf8.count > maximumCollapseIDSize || collapseID.isEmpty {
            return .failure(Refusal(status: 400, reason: "BadCollapseId"))
        }
        guard UUID(uuidString: notification.apnsID) != nil else {
            return .failure(Refusal(status: 400, reason: "BadMessageId"))
        }
        if let expiration = notification.expiration, expiration < 0 {
            return .failure(Refusal(status: 400, reason: "BadExpirationDate"))
        }
        let payload: Data
        do {
            payload = try encoder.encode(notification.payload)
        } catch {
            return .failure(Refusal(status: 400, reason: "PayloadEmpty"))
        }
        guard payload.count <= maximumPayloadSize else {
            return .failure(Refusal(status: 413, reason: "PayloadTooLarge"))
        }

        var headers = HTTPHeaders()
        headers.reserveCapacity(9)
        headers.add(name: "apns-topic", value: topic)
        headers.add(name: "apns-push-type", value: notification.pushType.rawValue)
        headers.add(name: "apns-priority", value: String(notification.priority.rawValue))
        headers.add(name: "apns-id", value: notification.apnsID)
        if let expiration = notification.expiration {
            headers.add(name: "apns-expiration", value: String(expiration))
        }
        if let collapseID = notification.collapseID {
            headers.add(name: "apns-collapse-id", value: collapseID)
        }
        headers.add(name: "content-type", value: "application/json")
        return .success(APNsRequest(
            path: "/3/device/" + notification.token.hex, headers: headers, body: ByteBuffer(bytes: payload)))
    }

    /// A push refused locally, with the status and reason APNs would have answered.
    struct Refusal: Error, Sendable {
        let status: Int
        let reason: String
    }

    /// Sorted keys, so that the same push is the same bytes on every attempt and every run.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
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
    static func judge(status: Int, apnsID: String?, body: ByteBuffer?, sentID: String) -> APNsVerdict {
        if status == 200 {
            return .final(.delivered(apnsID: apnsID ?? sentID))
        }
        let error = APNsErrorBody.parse(body)
        let reason = error.reason ?? "HTTP \(status)"
        switch status {
        case 410:
            return .final(.invalidToken(reason: reason, unregisteredAt: error.timestamp))
        case 400 where reason == "BadDeviceToken":
            return .final(.invalidToken(reason: reason, unregisteredAt: nil))
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
