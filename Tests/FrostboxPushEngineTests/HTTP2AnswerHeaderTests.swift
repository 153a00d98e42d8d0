import FrostboxPushEngine
import NIOHPACK
import Testing

@Suite("The header an answer keeps")
struct HTTP2AnswerHeaderTests {
    @Test("by status: a success keeps its TTL, any other answer its Retry-After and never a TTL in its place")
    func byStatus() {
        let rule = HTTP2AnswerHeader.byStatus(success: "ttl", failure: "retry-after")
        let ttlOnly: HPACKHeaders = [":status": "429", "ttl": "86400"]
        let both: HPACKHeaders = [":status": "201", "retry-after": "30", "ttl": "3600"]
        #expect(rule.value(status: 201, in: both) == "3600")
        #expect(rule.value(status: 429, in: ttlOnly) == nil, "a TTL is no Retry-After")
        #expect(rule.value(status: 503, in: both) == "30")
        #expect(rule.value(status: nil, in: both) == nil)
    }

    @Test("named: the same header whatever the status; none keeps nothing")
    func named() {
        let headers: HPACKHeaders = [":status": "400", "apns-id": "abc"]
        #expect(HTTP2AnswerHeader.named("apns-id").value(status: 400, in: headers) == "abc")
        #expect(HTTP2AnswerHeader.named("apns-id").value(status: 200, in: headers) == "abc")
        #expect(HTTP2AnswerHeader.none.value(status: 200, in: headers) == nil)
    }
}
