import Foundation
import FrostboxCore
import FrostboxFCM
import Testing

@testable import MockFCM

/// The double refuses what FCM refuses, so the adapter's tests against it mean something.
@Suite("mock-fcm message checks")
struct MockFCMValidationTests {
    func refusal(_ json: String) -> String? {
        switch MockFCMValidator.validate(Data(json.utf8)) {
        case .success: nil
        case .failure(let refusal): refusal.message
        }
    }

    @Test("the adapter's own rendering passes")
    func ownRenderingPasses() {
        let body = FCMMessageRenderer(channelID: "c").render(alert(token: "abc"), now: 1_800_000_000)
        #expect(refusal(String(decoding: body, as: UTF8.self)) == nil)
    }

    @Test("non-string data, bad durations, unknown enums and unknown fields are refused")
    func refusals() {
        #expect(refusal(#"{"message":{"token":"t","data":{"a":"1","b":12}}}"#)?.contains("message.data[1].value") == true)
        #expect(refusal(#"{"message":{"token":"t","android":{"ttl":"3600"}}}"#)?.contains("Duration") == true)
        #expect(refusal(#"{"message":{"token":"t","android":{"ttl":"1.5s"}}}"#) == nil)
        #expect(refusal(#"{"message":{"token":"t","android":{"priority":"URGENT"}}}"#)?.contains("TYPE_ENUM") == true)
        #expect(refusal(#"{"message":{"token":"t","android":{"color_key":"x"}}}"#)?.contains(#"Unknown name "color_key""#) == true)
        #expect(refusal(#"{"message":{"token":"t","android":{"notification":{"sticky":"yes"}}}}"#)?.contains("TYPE_BOOL") == true)
        #expect(refusal(#"{"message":{"topic":"news"}}"#) != nil)
        #expect(refusal(#"{"message":{"token":"t","topic":"news"}}"#) != nil)
        #expect(refusal(#"{"msg":{"token":"t"}}"#) != nil)
    }

    @Test("lowerCamelCase names are accepted as proto JSON allows")
    func camelCase() {
        #expect(refusal(#"{"message":{"token":"t","android":{"collapseKey":"k","notification":{"channelId":"c","defaultSound":true}}}}"#) == nil)
    }

    @Test("fault prefixes: the longest match wins")
    func faults() {
        #expect(MockFCMTokenFault.of(token: "QUOTAONCE-1") == .quotaOnce)
        #expect(MockFCMTokenFault.of(token: "QUOTA-1") == .quotaExceeded)
        #expect(MockFCMTokenFault.of(token: "good") == nil)
    }
}
