import Foundation
import FrostboxCore
import NIOCore
import Testing

@testable import FrostboxAPNs

@Suite("APNs payload encoding, once per distinct payload")
struct APNsPayloadEncoderTests {
    private func payload(_ body: String) -> AlertContent {
        AlertContent(title: "Frost", body: body, sound: "default")
    }

    @Test("equal payloads share one encoding; the bytes are the sorted-key JSON")
    func sharedEncoding() throws {
        let encoder = APNsPayloadEncoder()
        let first = try #require(encoder.encode(payload("−3 °C")))
        let second = try #require(encoder.encode(payload("−3 °C")))
        #expect(first == second)
        #expect(encoder.count == 1)
        #expect(String(buffer: first) == #"{"aps":{"alert":{"body":"−3 °C","title":"Frost"},"sound":"default"}}"#)
        _ = encoder.encode(payload("−5 °C"))
        #expect(encoder.count == 2)
    }

    @Test("the cache is bounded: it starts over when full")
    func bounded() {
        let encoder = APNsPayloadEncoder(capacity: 3)
        for index in 0..<3 { _ = encoder.encode(payload("\(index)")) }
        #expect(encoder.count == 3)
        _ = encoder.encode(payload("3"))
        #expect(encoder.count == 1)
    }

    @Test("requests built from pushes with one payload carry the same bytes")
    func requestsShareBytes() throws {
        let encoder = APNsPayloadEncoder()
        let one = alert(to: token("a1", 1))
        let two = alert(to: token("a1", 2))
        let first = try APNsRequest.make(one, topic: APNsHarness.bundleID, payloads: encoder).get()
        let second = try APNsRequest.make(two, topic: APNsHarness.bundleID, payloads: encoder).get()
        #expect(first.body == second.body)
        #expect(encoder.count == 1)
        #expect(first.fields.first(name: "apns-id") == one.messageID)
        #expect(first.path == "/3/device/" + one.token.value)
    }

    @Test("a verification push is a background push: priority 5, content-available and nothing else, no collapse id")
    func verificationPush() throws {
        var notification = PushNotification.verification(
            token: token("a1", 3), platform: .ios, app: nil, environment: nil, messageID: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
            expiration: 1_800_000_000)
        notification.collapseID = "frost-x"
        let request = try APNsRequest.make(notification, topic: APNsHarness.bundleID, payloads: APNsPayloadEncoder()).get()
        #expect(String(buffer: request.body) == #"{"aps":{"content-available":1}}"#)
        #expect(request.fields.first(name: "apns-push-type") == "background")
        #expect(request.fields.first(name: "apns-priority") == "5")
        #expect(request.fields.first(name: "apns-collapse-id") == nil)
        #expect(request.fields.first(name: "apns-expiration") == "1800000000")
    }
}
