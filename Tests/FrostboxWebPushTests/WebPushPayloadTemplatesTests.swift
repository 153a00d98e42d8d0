import FrostboxCore
import Testing

@testable import FrostboxWebPush

/// The payload from a template per alert is the payload rendered whole, byte for byte, and the
/// topic kept with it is the collapse id's.
@Suite("Web Push payload templates")
struct WebPushPayloadTemplatesTests {
    static func alert(_ id: String, body: String = "Home: -3 °C", collapseID: String? = "frost-1", purpose: PushPurpose = .alert) -> PushNotification {
        var notification = PushNotification(
            token: DeviceToken.webID(random: Array(repeating: 1, count: 16)), platform: .web, messageID: id, collapseID: collapseID,
            content: AlertContent(
                title: "Frost tonight", body: body, frost: FrostData(box: "60.15,24.95", night: "2026-11-30", level: "freeze", minimumC: -3)))
        notification.purpose = purpose
        return notification
    }

    @Test("the same bytes as rendering whole: alerts, other alerts, all-clears without a collapse id, verifications, odd ids")
    func sameBytes() {
        let templates = WebPushPayloadTemplates()
        let cases = [
            Self.alert("00000000-0000-4000-8000-000000000001"), Self.alert("00000000-0000-4000-8000-000000000002"),
            Self.alert("00000000-0000-4000-8000-000000000003", body: "Garden: \"hard\" frost\n, −6 °C / 21 °F"),
            Self.alert("00000000-0000-4000-8000-000000000004", collapseID: nil),
            Self.alert("00000000-0000-4000-8000-000000000005", purpose: .verification),
            Self.alert(#"id "quoted" \ and / slashed"#), Self.alert(""),
        ]
        for notification in cases + cases {
            #expect(templates.render(notification) == WebPushPayload.render(notification), "\(notification.messageID)")
        }
    }

    @Test("the topic kept with a template is the push's own collapse id's, for alerts that differ only in it, and none without one")
    func topicPerCollapseID() {
        let templates = WebPushPayloadTemplates()
        let collapseIDs: [String?] = ["frost-1", "frost-2", nil, "frost-1", nil, "frost-2"]
        for (index, collapseID) in collapseIDs.enumerated() {
            for id in [String(format: "00000000-0000-4000-8000-%012x", index), #"odd "id" \#(index)"#] {
                let parts = templates.parts(Self.alert(id, collapseID: collapseID))
                #expect(parts.topic == collapseID.map(WebPushPlatform.topic), "\(id), \(collapseID ?? "none")")
                #expect(parts.plaintext == WebPushPayload.render(Self.alert(id, collapseID: collapseID)))
            }
        }
        #expect(WebPushPlatform.topic("frost-1") != WebPushPlatform.topic("frost-2"))
    }

    @Test("alerts taking turns, equal ones made apart and ones that differ in one character: each payload its own")
    func alternating() {
        let templates = WebPushPayloadTemplates()
        for round in 0..<4 {
            // Equal texts built at run time (no shared storage) and texts differing in one digit.
            let bodies = ["Home: -\(3) °C", "Home: -\(3) °C", "Home: -\(4) °C", "Home: -\(3) °C"]
            for (index, body) in bodies.enumerated() {
                let notification = Self.alert(String(format: "00000000-0000-4000-8000-%012x", round * 10 + index), body: body)
                #expect(templates.render(notification) == WebPushPayload.render(notification), "round \(round), \(body)")
            }
        }
    }

    @Test("more alerts than the templates kept: every payload still right")
    func overCapacity() {
        let templates = WebPushPayloadTemplates()
        for n in 0..<(WebPushPayloadTemplates.capacity * 2 + 3) {
            let notification = Self.alert(String(format: "00000000-0000-4000-8000-%012x", n), body: "Place \(n): -\(n % 7) °C")
            #expect(templates.render(notification) == WebPushPayload.render(notification))
        }
    }
}
