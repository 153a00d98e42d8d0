import Foundation
import FrostboxCore
import FrostboxPushEngine
import NIOCore

/// What a push service's answer means (RFC 8030 §5 and §8, RFC 8292, and what Google's,
/// Mozilla's, Apple's and Microsoft's services document).
package enum WebPushVerdict {
    /// Longest reason kept from an answer's body.
    static let maximumReason = 200

    /// Judges an answer to the push of `messageID`. `retryAfter` is the raw header.
    package static func judge(status: Int, retryAfter: String?, body: ByteBuffer?, messageID: String) -> PushVerdict {
        let said = reason(body)
        switch status {
        case 200...299:
            // 201 Created, with the message's resource in `Location`; our own id names it.
            return .final(.delivered(messageID: messageID))
        case 404, 410:
            // The subscription expired or was unsubscribed: the device is gone.
            return .final(.invalidToken(reason: (status == 410 ? "Gone" : "NotFound") + (said.map { ": " + $0 } ?? ""), unregisteredAtMilliseconds: nil))
        case 413:
            // A payload bug, not the device's fault: kept with its reason, the device kept too.
            return .final(.permanentFailure(status: 413, reason: "PayloadTooLarge" + (said.map { ": " + $0 } ?? "")))
        case 401,
            403 where said.map(namesTheToken) == true:
            // The VAPID token was refused: the app's key or subject is wrong, and every push of it
            // would be. 401 is RFC 8292's answer; Apple's service answers 403 with its reason
            // (`BadJwtToken`: a subject it refuses, such as `mailto:…@localhost`).
            let reason = "VAPIDRefused" + (said.map { ": " + $0 } ?? "")
            return .renewCredential(reason: reason, otherwise: .authFailure(reason: reason))
        case 406, 408, 429, 500...599:
            // Too many, or not now: 429, and Microsoft's 406 (its throttle limit); the service
            // timed out (408) or failed (5xx).
            let name =
                switch status {
                case 406: "Throttled"
                case 408: "RequestTimeout"
                case 429: "TooManyRequests"
                default: "ServerError \(status)"
                }
            return .temporary(reason: name + (said.map { ": " + $0 } ?? ""), retryAfter: retryAfter.flatMap(PushRetryPolicy.retryAfter))
        default:
            // 400 (a header the service refused), another 403 (a subscription made for another key), …
            return .final(.permanentFailure(status: status, reason: "Refused \(status)" + (said.map { ": " + $0 } ?? "")))
        }
    }

    /// Reasons of a 403 that refuse the VAPID token itself (Apple's), not one subscription (FCM
    /// answers 403 for a subscription made with another key: that one stays per device).
    static let tokenRefusals = ["BadJwtToken", "ExpiredJwtToken", "MissingJwtToken", "InvalidProviderToken", "ExpiredProviderToken"]

    /// Whether an answer's reason names a refused token.
    static func namesTheToken(_ reason: String) -> Bool { tokenRefusals.contains { reason.contains($0) } }

    /// The first line of printable text of an answer's body, at most `maximumReason` bytes.
    static func reason(_ body: ByteBuffer?) -> String? {
        guard let body, body.readableBytes > 0 else { return nil }
        var text = ""
        for byte in body.readableBytesView.prefix(maximumReason) {
            switch byte {
            case 0x20..<0x7f: text.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x09, 0x0a, 0x0d: if text.last != " " { text.append(" ") }
            default: continue
            }
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
