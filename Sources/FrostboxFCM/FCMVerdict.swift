import Foundation
import FrostboxCore
import FrostboxPushEngine
import NIOCore

/// What one `messages:send` answer means, judged from its status, `Retry-After` and body alone
/// (no I/O): a final outcome, a token FCM would not take, or a failure worth retrying.
public enum FCMVerdict: Sendable, Hashable {
    /// Nothing more to do for this message.
    case final(PushOutcome)
    /// 401: the access token was refused; renew it once, then stop the app.
    case unauthenticated(reason: String)
    /// 429, 5xx: retry after `retryAfter` (when the server said) or a backoff.
    case temporary(reason: String, retryAfter: Duration?)

    /// The FCM error detail type that carries `errorCode`.
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// The request-validation detail type that names the bad fields.
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// Judges an answer. `retryAfter` is the raw header, `body` at most the capped bytes read.
    public static func judge(status: Int, retryAfter: String?, body: Data) -> FCMVerdict {
        if status == 200 {
            let name = (try? JSONDecoder().decode(SendAnswer.self, from: body))?.name
            guard let name, !name.isEmpty else {
                // Accepted, but without the id FCM always gives: the push went; say so plainly.
                return .final(.delivered(messageID: ""))
            }
            return .final(.delivered(messageID: name))
        }
        let error = (try? JSONDecoder().decode(ErrorAnswer.self, from: body))?.error
        let errorCode = error?.details?.first { $0.type == fcmErrorType }?.errorCode
        let reason = errorCode ?? error?.status ?? "HTTP \(status)"
        switch status {
        case 401 where errorCode == "THIRD_PARTY_AUTH_ERROR":
            // FCM's own credentials towards APNs or web push, not ours: this device only.
            return .final(.permanentFailure(status: status, reason: reason))
        case 401:
            return .unauthenticated(reason: reason)
        case _ where status == 404 || errorCode == "UNREGISTERED":
            return .final(.invalidToken(reason: "UNREGISTERED", unregisteredAtMilliseconds: nil))
        case 400 where namesTheToken(error):
            return .final(.invalidToken(reason: "INVALID_ARGUMENT", unregisteredAtMilliseconds: nil))
        case 403 where errorCode == "SENDER_ID_MISMATCH":
            return .final(.permanentFailure(status: status, reason: "SENDER_ID_MISMATCH"))
        case 403:
            // PERMISSION_DENIED: the account may not send for this project. Every message of
            // the app would be refused alike.
            return .final(.authFailure(reason: reason))
        case 429, 500...599:
            return .temporary(reason: reason, retryAfter: retryAfter.flatMap(PushRetryPolicy.retryAfter))
        default:
            return .final(.permanentFailure(status: status, reason: reason))
        }
    }

    /// Judges an answer as the transport keeps it. A 200's `{"name": "…"}` is read without a
    /// JSON decoder (the body of every delivered message: the hot path); anything else, or a
    /// name the quick read cannot take (escapes), goes through `judge(status:retryAfter:body:)`.
    public static func judge(status: Int, retryAfter: String?, answer: ByteBuffer?) -> FCMVerdict {
        if status == 200, let answer, let name = quickName(answer.readableBytesView) {
            return .final(.delivered(messageID: name))
        }
        return judge(status: status, retryAfter: retryAfter, body: answer.map { Data($0.readableBytesView) } ?? Data())
    }

    /// The value of a top-level `"name"` string in a JSON object of plain members, or nil when
    /// the body is anything else (then the decoder decides).
    static func quickName(_ bytes: ByteBufferView) -> String? {
        let key = Array(#""name""#.utf8)
        var index = bytes.startIndex
        let end = bytes.endIndex
        func skipSpace() {
            while index < end, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }
        skipSpace()
        guard index < end, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipSpace()
        guard end - index > key.count, bytes[index..<(index + key.count)].elementsEqual(key) else { return nil }
        index += key.count
        skipSpace()
        guard index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpace()
        guard index < end, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < end, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 else { return nil }
            index += 1
        }
        guard index < end, index > start else { return nil }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        skipSpace()
        // Only `{"name": "…"}`: another member after it goes through the decoder.
        guard index < end, bytes[index] == UInt8(ascii: "}") else { return nil }
        return name
    }

    /// Whether a 400 blames the registration token (then the token is dead) rather than
    /// another field of our message (then the message is wrong, the token may be fine).
    static func namesTheToken(_ error: ErrorAnswer.Body?) -> Bool {
        guard let error else { return false }
        let violations = error.details?.flatMap { $0.fieldViolations ?? [] } ?? []
        if !violations.isEmpty {
            return violations.contains { $0.field == "message.token" }
        }
        return error.message?.range(of: "registration token", options: .caseInsensitive) != nil
    }

    struct SendAnswer: Decodable {
        var name: String?
    }

    /// Google's error envelope.
    struct ErrorAnswer: Decodable {
        struct Body: Decodable {
            var code: Int?
            var message: String?
            var status: String?
            var details: [Detail]?
        }

        struct Detail: Decodable {
            var type: String?
            var errorCode: String?
            var fieldViolations: [FieldViolation]?

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case errorCode, fieldViolations
            }
        }

        struct FieldViolation: Decodable {
            var field: String?
            var description: String?
        }

        var error: Body?
    }
}
