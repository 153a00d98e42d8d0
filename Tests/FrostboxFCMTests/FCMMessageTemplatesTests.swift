import Foundation
import FrostboxCore
import NIOCore
import Testing

@testable import FrostboxFCM

@Suite("FCM bodies from templates: the renderer's bytes, rendered once per alert")
struct FCMMessageTemplatesTests {
    static let renderer = FCMMessageRenderer(channelID: "frost_alerts")

    static func bytes(_ buffer: ByteBuffer) -> Data { Data(buffer.readableBytesView) }

    @Test("every device of one alert gets exactly the renderer's body: its own token, alert id and TTL")
    func sameBytes() {
        let templates = FCMMessageTemplates(renderer: Self.renderer)
        for index in 0..<50 {
            var push = alert(token: "fcm:tok\(index)_\(String(repeating: "x", count: index))", messageID: UUID().uuidString.lowercased())
            push.expiration = 1_800_003_600 + Int64(index)
            let now: Int64 = 1_800_000_000 + Int64(index * 7)
            #expect(Self.bytes(templates.body(for: push, now: now)) == Self.renderer.render(push, now: now))
        }
    }

    @Test("without an expiry, quiet and passive alerts, and a verification push: still the renderer's bytes")
    func variants() {
        let templates = FCMMessageTemplates(renderer: Self.renderer)
        var noExpiry = alert(token: "fcm:a", expiration: nil)
        noExpiry.priority = .throttled
        var passive = alert(token: "fcm:b")
        passive.content.interruption = .passive
        passive.content.title = "Quote \" backslash \\ tab \t and é"
        var verification = alert(token: "fcm:c")
        verification.purpose = .verification
        for push in [noExpiry, passive, verification] {
            #expect(Self.bytes(templates.body(for: push, now: 1_800_000_000)) == Self.renderer.render(push, now: 1_800_000_000))
        }
    }

    @Test("a token or id with characters JSON must escape is escaped as the renderer escapes it")
    func escapes() {
        let templates = FCMMessageTemplates(renderer: Self.renderer)
        let push = alert(token: "fcm:\"odd\\token\u{7}", messageID: "id\"1")
        #expect(Self.bytes(templates.body(for: push, now: 1_800_000_000)) == Self.renderer.render(push, now: 1_800_000_000))
    }

    @Test("alert text that contains a template marker itself is rendered whole, correctly")
    func markerInText() {
        let templates = FCMMessageTemplates(renderer: Self.renderer)
        var push = alert(token: "fcm:d")
        push.content.body = "control \u{1}T in the text"
        #expect(Self.bytes(templates.body(for: push, now: 1_800_000_000)) == Self.renderer.render(push, now: 1_800_000_000))
        var other = alert(token: "fcm:e")
        other.content.body = #"escaped \u0001A in the text"#
        #expect(Self.bytes(templates.body(for: other, now: 1_800_000_000)) == Self.renderer.render(other, now: 1_800_000_000))
    }
}

@Suite("FCM answers read fast")
struct FCMQuickAnswerTests {
    static func judge(_ body: String, status: Int = 200) -> FCMVerdict {
        FCMVerdict.judge(status: status, retryAfter: nil, answer: ByteBuffer(string: body))
    }

    @Test("a 200's name is read without the decoder, whatever the whitespace; anything else goes through the decoder alike")
    func names() {
        #expect(FCMVerdict.quickName(ByteBuffer(string: #"{"name":"projects/p/messages/0:1"}"#).readableBytesView) == "projects/p/messages/0:1")
        #expect(FCMVerdict.quickName(ByteBuffer(string: "{\n  \"name\": \"projects/p/messages/2\"\n}\n").readableBytesView) == "projects/p/messages/2")
        #expect(FCMVerdict.quickName(ByteBuffer(string: #"{"name":"a\/b"}"#).readableBytesView) == nil)
        #expect(FCMVerdict.quickName(ByteBuffer(string: #"{"name":"a","x":1}"#).readableBytesView) == nil)
        #expect(FCMVerdict.quickName(ByteBuffer(string: #"{"other":"a"}"#).readableBytesView) == nil)
        #expect(Self.judge(#"{"name":"a\/b"}"#) == .final(.delivered(messageID: "a/b")))
        #expect(Self.judge(#"{"name":"a","x":1}"#) == .final(.delivered(messageID: "a")))
        #expect(Self.judge("") == .final(.delivered(messageID: "")))
        #expect(Self.judge(#"{"error":{"status":"UNAVAILABLE"}}"#, status: 503) == .temporary(reason: "UNAVAILABLE", retryAfter: nil))
    }
}
