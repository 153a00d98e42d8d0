import Foundation
import FrostboxCore

/// What a service worker receives (before encryption): one JSON object the example page's
/// worker shows with `showNotification(title, {body, tag, data})`. The same bytes for every
/// attempt of a push (sorted keys, no clock), so a resend is byte-identical before encryption.
///
/// ```json
/// {"alert_id": "…", "body": "…", "data": {"box": "…", "level": "freeze", "minimum_c": "-3.5", "night": "2026-11-30"},
///  "kind": "alert", "tag": "frost-…", "title": "…"}
/// ```
package enum WebPushPayload {
    /// The body a browser's verification push shows: browsers show every push
    /// (`userVisibleOnly`), so proving a subscription real is telling its person alerts are on.
    package static let verificationTitle = "Frost alerts are on"
    package static let verificationBody = "Frost alerts are on for this browser. You will be told here when frost is coming."

    /// The plaintext of `notification`.
    package static func render(_ notification: PushNotification) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let message: Message
        if notification.purpose == .verification {
            message = Message(
                kind: "verification", alertID: notification.messageID, title: verificationTitle, body: verificationBody, tag: "frostbox-verification",
                data: nil)
        } else {
            let content = notification.content
            let data = content.frost?.textFields ?? [:]
            message = Message(
                kind: "alert", alertID: notification.messageID, title: content.title ?? "Frostbox", body: content.body,
                tag: notification.collapseID ?? content.group, data: data.isEmpty ? nil : data)
        }
        // Strings and string maps only: encoding cannot fail.
        return Array((try? encoder.encode(message)) ?? Data())
    }

    struct Message: Encodable {
        var kind: String
        var alertID: String
        var title: String
        var body: String?
        /// A newer notification with the same tag replaces the shown one.
        var tag: String?
        var data: [String: String]?

        enum CodingKeys: String, CodingKey {
            case kind, title, body, tag, data
            case alertID = "alert_id"
        }
    }
}
