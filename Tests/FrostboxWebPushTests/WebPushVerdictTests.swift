import FrostboxCore
import FrostboxPushEngine
import NIOCore
import Testing

@testable import FrostboxWebPush

/// What a push service's answer means (issue #46, RFC 8030 §5).
@Suite("Web Push verdicts")
struct WebPushVerdictTests {
    static let id = "00000000-0000-4000-8000-000000000001"

    static func judge(_ status: Int, _ body: String? = nil, retryAfter: String? = nil) -> PushVerdict {
        WebPushVerdict.judge(status: status, retryAfter: retryAfter, body: body.map { ByteBuffer(string: $0) }, messageID: id)
    }

    @Test("201 (and any 2xx) is delivered under the push's own id")
    func delivered() {
        #expect(Self.judge(201) == .final(.delivered(messageID: Self.id)))
        #expect(Self.judge(200) == .final(.delivered(messageID: Self.id)))
    }

    @Test("404 and 410 are a dead subscription, with the service's reason; 413 permanent, the device kept")
    func gone() {
        #expect(
            Self.judge(410, "push subscription has unsubscribed or expired.\n")
                == .final(.invalidToken(reason: "Gone: push subscription has unsubscribed or expired.", unregisteredAtMilliseconds: nil)))
        #expect(Self.judge(404) == .final(.invalidToken(reason: "NotFound", unregisteredAtMilliseconds: nil)))
        #expect(Self.judge(413) == .final(.permanentFailure(status: 413, reason: "PayloadTooLarge")))
    }

    @Test("429, 5xx, 406 and 408 are temporary with the Retry-After said, in seconds or as a date; garbage leaves the backoff")
    func temporary() {
        #expect(Self.judge(429, retryAfter: "30") == .temporary(reason: "TooManyRequests", retryAfter: .seconds(30)))
        #expect(Self.judge(503, "busy", retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT") == .temporary(reason: "ServerError 503: busy", retryAfter: .zero))
        guard case .temporary(_, let future?) = Self.judge(503, retryAfter: "Fri, 01 Jan 2100 00:00:00 GMT") else {
            Issue.record("a date ahead was not read")
            return
        }
        #expect(future > .seconds(365 * 86_400))
        #expect(Self.judge(429, retryAfter: "later") == .temporary(reason: "TooManyRequests", retryAfter: nil))
        #expect(Self.judge(406, "throttled") == .temporary(reason: "Throttled: throttled", retryAfter: nil), "Microsoft's throttle limit")
        #expect(Self.judge(408) == .temporary(reason: "RequestTimeout", retryAfter: nil))
    }

    @Test(
        "401, or a 403 whose reason refuses the token (Apple's BadJwtToken), refuses the VAPID token: the app stops; 400 and other 403s are permanent for the message"
    )
    func refused() {
        #expect(
            Self.judge(401, "invalid JWT")
                == .renewCredential(reason: "VAPIDRefused: invalid JWT", otherwise: .authFailure(reason: "VAPIDRefused: invalid JWT")))
        let apple = #"VAPIDRefused: {"reason":"BadJwtToken"}"#
        #expect(Self.judge(403, #"{"reason":"BadJwtToken"}"#) == .renewCredential(reason: apple, otherwise: .authFailure(reason: apple)))
        #expect(Self.judge(403, #"{"error":"key mismatch"}"#) == .final(.permanentFailure(status: 403, reason: #"Refused 403: {"error":"key mismatch"}"#)))
        #expect(Self.judge(403) == .final(.permanentFailure(status: 403, reason: "Refused 403")))
        #expect(Self.judge(400) == .final(.permanentFailure(status: 400, reason: "Refused 400")))
    }

    @Test("a reason is one line of printable text, at most 200 bytes")
    func reasonBounded() {
        let reason = WebPushVerdict.reason(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 5_000) + [0, 1, 2]))
        #expect(reason?.count == 200)
        #expect(WebPushVerdict.reason(ByteBuffer(bytes: [0xff, 0xfe, 0x0a])) == nil)
    }
}
