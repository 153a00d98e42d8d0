import Foundation
import FrostboxCore
import FrostboxFCM
import Testing

@Suite("FCM answer classification")
struct FCMVerdictTests {
    func error(_ status: Int, _ code: String, _ message: String, errorCode: String? = nil, field: String? = nil) -> Data {
        var details = ""
        if let errorCode {
            details = #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}]"#
        } else if let field {
            details = #","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)"}]}]"#
        }
        return Data(#"{"error":{"code":\#(status),"message":"\#(message)","status":"\#(code)"\#(details)}}"#.utf8)
    }

    @Test("200 is delivered with the answered name")
    func delivered() {
        let verdict = FCMVerdict.judge(status: 200, retryAfter: nil, body: Data(#"{"name":"projects/p/messages/0:1%2"}"#.utf8))
        #expect(verdict == .final(.delivered(messageID: "projects/p/messages/0:1%2")))
    }

    @Test("404 and UNREGISTERED mean the token is dead")
    func unregistered() {
        let dead = PushOutcome.invalidToken(reason: "UNREGISTERED", unregisteredAtMilliseconds: nil)
        #expect(FCMVerdict.judge(status: 404, retryAfter: nil, body: error(404, "NOT_FOUND", "x", errorCode: "UNREGISTERED")) == .final(dead))
        #expect(FCMVerdict.judge(status: 404, retryAfter: nil, body: Data()) == .final(dead))
        #expect(FCMVerdict.judge(status: 400, retryAfter: nil, body: error(400, "INVALID_ARGUMENT", "x", errorCode: "UNREGISTERED")) == .final(dead))
    }

    @Test("an INVALID_ARGUMENT that names the token kills the token; one that names another field does not")
    func invalidArgument() {
        let dead = FCMVerdict.final(.invalidToken(reason: "INVALID_ARGUMENT", unregisteredAtMilliseconds: nil))
        let byMessage = error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", errorCode: "INVALID_ARGUMENT")
        #expect(FCMVerdict.judge(status: 400, retryAfter: nil, body: byMessage) == dead)
        let byField = error(400, "INVALID_ARGUMENT", "Invalid value", field: "message.token")
        #expect(FCMVerdict.judge(status: 400, retryAfter: nil, body: byField) == dead)
        let otherField = error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value' (TYPE_STRING), 12", field: "message.data[0].value")
        #expect(FCMVerdict.judge(status: 400, retryAfter: nil, body: otherField) == .final(.permanentFailure(status: 400, reason: "INVALID_ARGUMENT")))
    }

    @Test("SENDER_ID_MISMATCH is permanent for the device; another 403 stops the app")
    func forbidden() {
        let mismatch = error(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
        #expect(FCMVerdict.judge(status: 403, retryAfter: nil, body: mismatch) == .final(.permanentFailure(status: 403, reason: "SENDER_ID_MISMATCH")))
        let denied = error(403, "PERMISSION_DENIED", "Permission denied")
        #expect(FCMVerdict.judge(status: 403, retryAfter: nil, body: denied) == .final(.authFailure(reason: "PERMISSION_DENIED")))
    }

    @Test("401 asks for a new access token, unless FCM's own third-party credentials failed")
    func unauthenticated() {
        #expect(FCMVerdict.judge(status: 401, retryAfter: nil, body: error(401, "UNAUTHENTICATED", "x")) == .unauthenticated(reason: "UNAUTHENTICATED"))
        let thirdParty = error(401, "UNAUTHENTICATED", "x", errorCode: "THIRD_PARTY_AUTH_ERROR")
        #expect(FCMVerdict.judge(status: 401, retryAfter: nil, body: thirdParty) == .final(.permanentFailure(status: 401, reason: "THIRD_PARTY_AUTH_ERROR")))
    }

    @Test("429, 500 and 503 are temporary, with Retry-After when given")
    func temporary() {
        let quota = error(429, "RESOURCE_EXHAUSTED", "x", errorCode: "QUOTA_EXCEEDED")
        #expect(FCMVerdict.judge(status: 429, retryAfter: "30", body: quota) == .temporary(reason: "QUOTA_EXCEEDED", retryAfter: .seconds(30)))
        #expect(FCMVerdict.judge(status: 503, retryAfter: nil, body: error(503, "UNAVAILABLE", "x")) == .temporary(reason: "UNAVAILABLE", retryAfter: nil))
        #expect(FCMVerdict.judge(status: 500, retryAfter: "soon", body: Data("<html>".utf8)) == .temporary(reason: "HTTP 500", retryAfter: nil))
    }

    @Test("other 400s are permanent with the reason kept")
    func otherClientErrors() {
        let tooBig = error(400, "INVALID_ARGUMENT", "Message is too big", errorCode: "INVALID_ARGUMENT")
        #expect(FCMVerdict.judge(status: 400, retryAfter: nil, body: tooBig) == .final(.permanentFailure(status: 400, reason: "INVALID_ARGUMENT")))
        #expect(FCMVerdict.judge(status: 413, retryAfter: nil, body: Data()) == .final(.permanentFailure(status: 413, reason: "HTTP 413")))
    }
}
