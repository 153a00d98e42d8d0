import Foundation
import FrostboxCore
import Testing

@testable import FrostboxFCM

@Suite("FCM message rendering")
struct FCMMessageRendererTests {
    let renderer = FCMMessageRenderer(channelID: "frost_alerts")

    @Test("a frost alert renders as the v1 message, byte for byte")
    func fullAlert() throws {
        let body = renderer.render(alert(token: "dGVzdDp0b2tlbg"), now: 1_800_000_000)
        let expected =
            #"{"message":{"android":{"collapse_key":"frost-2026-11-20-box","notification":{"body_loc_args":["Home","-4","05:00"],"#
            + #""body_loc_key":"alert.hard.body","channel_id":"frost_alerts","notification_priority":"PRIORITY_HIGH","sound":"default","#
            + #""tag":"frost-2026-11-20-box","title_loc_key":"alert.hard.title"},"priority":"HIGH","ttl":"3600s"},"#
            + #""data":{"alert_id":"7b1d6a52-3c1e-4c39-9a57-5d0f1c2e8a41","box":"60.20,25.00","group":"box-60.20-25.00","level":"hard","#
            + #""minimum_c":"-4.5","night":"2026-11-20"},"#
            + #""notification":{"body":"Hard frost tonight at Home: low −4 °C around 05:00","title":"Hard frost warning"},"#
            + #""token":"dGVzdDp0b2tlbg"}}"#
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }

    @Test("the same alert at the same second is the same bytes")
    func deterministic() {
        let first = renderer.render(alert(token: "abc"), now: 1_800_000_000)
        for _ in 0..<20 {
            #expect(renderer.render(alert(token: "abc"), now: 1_800_000_000) == first)
        }
    }

    @Test("every data value is a string")
    func dataIsStrings() throws {
        let body = renderer.render(alert(token: "abc"), now: 1_800_000_000)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let data = try #require((object["message"] as? [String: Any])?["data"] as? [String: Any])
        #expect(data.count == 6)
        #expect(data.values.allSatisfy { $0 is String })
    }

    @Test("ttl is the seconds left until expiry, never negative, and absent without expiry")
    func ttl() throws {
        func ttl(_ notification: PushNotification, now: Int64) throws -> String? {
            let object = try JSONSerialization.jsonObject(with: renderer.render(notification, now: now)) as? [String: Any]
            return ((object?["message"] as? [String: Any])?["android"] as? [String: Any])?["ttl"] as? String
        }
        #expect(try ttl(alert(token: "a", expiration: 1_800_000_090), now: 1_800_000_000) == "90s")
        #expect(try ttl(alert(token: "a", expiration: 1_700_000_000), now: 1_800_000_000) == "0s")
        #expect(try ttl(alert(token: "a", expiration: nil), now: 1_800_000_000) == nil)
    }

    @Test("throttled priority is NORMAL; no title or body leaves out the notification block")
    func throttledAndSilent() {
        var notification = alert(token: "abc")
        notification.priority = .throttled
        notification.content.title = nil
        notification.content.body = nil
        let text = String(decoding: FCMMessageRenderer().render(notification, now: 0), as: UTF8.self)
        #expect(text.contains(#""priority":"NORMAL""#))
        #expect(!text.contains(#""notification":{"body""#))
        #expect(!text.contains("channel_id"))
    }

    @Test("temperatures are written as plain decimals (the shortest that reads back, never an exponent)")
    func decimals() {
        func written(_ value: Double) -> String? { FrostData(box: "b", night: "n", level: "freeze", minimumC: value).textFields["minimum_c"] }
        #expect(written(-4) == "-4")
        #expect(written(-4.5) == "-4.5")
        #expect(written(0.25) == "0.25")
        #expect(FrostData(box: "b", night: "n", level: "freeze", minimumC: nil).textFields == ["box": "b", "night": "n", "level": "freeze"])
    }

    @Test("a verification push is a validate-only request: the token and its id, nothing that would show")
    func verification() {
        let notification = PushNotification.verification(
            token: DeviceToken(trusted: "fcm:abc"), platform: .android, app: nil, environment: nil,
            messageID: "1b4e28ba-2fa1-11d2-883f-0016d3cca427", expiration: 100)
        let text = String(decoding: FCMMessageRenderer(channelID: "frost").render(notification, now: 0), as: UTF8.self)
        #expect(text == #"{"message":{"data":{"alert_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"},"token":"fcm:abc"},"validate_only":true}"#)
    }
}
