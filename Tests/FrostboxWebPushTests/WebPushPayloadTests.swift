import Foundation
import FrostboxCore
import Testing

@testable import FrostboxWebPush

/// What a service worker receives, before encryption (issue #46).
@Suite("Web Push payload")
struct WebPushPayloadTests {
    static let token = DeviceToken.webID(random: Array(repeating: 1, count: 16))

    @Test("an alert: kind, alert id, title, body, the collapse id as tag and the frost data; the same bytes every time")
    func alert() throws {
        let notification = PushNotification(
            token: Self.token, platform: .web, messageID: "00000000-0000-4000-8000-000000000001", collapseID: "frost-0-20261130",
            content: AlertContent(
                title: "Frost tonight", body: "Home: −3.5 °C", group: "frost",
                frost: FrostData(box: "60.20,24.95", night: "2026-11-30", level: "freeze", minimumC: -3.5, probability: 80)))
        let bytes = WebPushPayload.render(notification)
        #expect(bytes == WebPushPayload.render(notification))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["kind"] as? String == "alert" && object["alert_id"] as? String == notification.messageID)
        #expect(object["title"] as? String == "Frost tonight" && object["body"] as? String == "Home: −3.5 °C" && object["tag"] as? String == "frost-0-20261130")
        #expect(
            object["data"] as? [String: String] == ["box": "60.20,24.95", "night": "2026-11-30", "level": "freeze", "minimum_c": "-3.5", "probability": "80"])
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"alert_id":"#), "sorted keys")
    }

    @Test("a verification push is a visible confirmation that alerts are on")
    func verification() throws {
        let notification = PushNotification.verification(
            token: Self.token, platform: .web, app: nil, environment: nil, messageID: "00000000-0000-4000-8000-000000000002", expiration: 100)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(WebPushPayload.render(notification))) as? [String: Any])
        #expect(object["kind"] as? String == "verification" && object["title"] as? String == WebPushPayload.verificationTitle)
        #expect((object["body"] as? String)?.hasPrefix("Frost alerts are on for") == true)
    }
}
