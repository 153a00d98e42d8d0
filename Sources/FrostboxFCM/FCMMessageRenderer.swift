import Foundation
import FrostboxCore

/// Renders a `PushNotification` as the body of an FCM HTTP v1 `messages:send` request:
///
/// - `notification`: `title` and `body` as the core wrote them (what shows when the app does
///   not translate);
/// - `android.notification`: the localisation keys and arguments (the app translates), the
///   app's `channel_id`, `sound`, and `tag` = the alert's collapse id, so a newer alert for the
///   same event replaces the one on screen as APNs' collapse id does; `notification_priority`
///   from the interruption level (passive → LOW, active → DEFAULT, time-sensitive → HIGH);
/// - `android.collapse_key` = the collapse id, `android.priority` HIGH (immediate) or NORMAL,
///   `android.ttl` = seconds left until the alert's expiry, as `"<n>s"` (none without expiry);
/// - `data`: strings only — `alert_id` (the message id, the same on every resend), `box`,
///   `night`, `level`, `minimum_c`, `probability` (whole percent; alerts by chance of frost
///   only), and `group` (APNs' thread id: FCM has no grouping field, so the app groups by it
///   itself).
///
/// Keys are written sorted, so the same notification rendered at the same second is the same
/// bytes; a send renders once and resends those bytes on every retry.
public struct FCMMessageRenderer: Sendable {
    /// The Android notification channel alerts are posted in, if the app has one.
    public var channelID: String?

    public init(channelID: String? = nil) {
        self.channelID = channelID
    }

    /// The request body for `notification`, `now` being UTC epoch seconds (for the TTL);
    /// `ttlOverride` replaces the TTL text (the templates' marker).
    public func render(_ notification: PushNotification, now: Int64) -> Data { render(notification, now: now, ttlOverride: nil) }

    func render(_ notification: PushNotification, now: Int64, ttlOverride: String?) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if notification.purpose == .verification {
            // FCM checks the token and the message without delivering it (`validate_only`):
            // nothing reaches the device, an unknown token still answers UNREGISTERED.
            let message = Wire.Message(token: notification.token.value, notification: nil, android: nil, data: ["alert_id": notification.messageID])
            return (try? encoder.encode(Wire.Request(message: message, validateOnly: true))) ?? Data()
        }
        let content = notification.content
        var data = content.frost?.textFields ?? [:]
        data["alert_id"] = notification.messageID
        if let group = content.group { data["group"] = group }
        let visible = content.title != nil || content.body != nil
        let message = Wire.Message(
            token: notification.token.value,
            notification: visible ? Wire.Notification(title: content.title, body: content.body) : nil,
            android: Wire.Android(
                collapseKey: notification.collapseID,
                priority: notification.priority == .immediate ? "HIGH" : "NORMAL",
                ttl: notification.expiration.map { ttlOverride ?? "\(max(0, $0 - now))s" },
                notification: Wire.AndroidNotification(
                    titleLocKey: content.titleLocKey, titleLocArgs: content.titleLocKey == nil ? nil : content.titleLocArgs,
                    bodyLocKey: content.bodyLocKey, bodyLocArgs: content.bodyLocKey == nil ? nil : content.bodyLocArgs,
                    channelID: channelID, sound: content.sound, tag: notification.collapseID,
                    notificationPriority: content.interruption.map(Self.notificationPriority))),
            data: data)
        // Strings, string arrays and string maps only: encoding cannot fail.
        return (try? encoder.encode(Wire.Request(message: message))) ?? Data()
    }

    /// Android's notification priority for an interruption level.
    static func notificationPriority(_ level: InterruptionLevel) -> String {
        switch level {
        case .passive: "PRIORITY_LOW"
        case .active: "PRIORITY_DEFAULT"
        case .timeSensitive: "PRIORITY_HIGH"
        }
    }

    /// The v1 JSON, field names as FCM spells them.
    enum Wire {
        struct Request: Encodable {
            var message: Message
            /// Check the request and the token, deliver nothing.
            var validateOnly: Bool? = nil

            enum CodingKeys: String, CodingKey {
                case message
                case validateOnly = "validate_only"
            }
        }

        struct Message: Encodable {
            var token: String
            var notification: Notification?
            var android: Android?
            var data: [String: String]
        }

        struct Notification: Encodable {
            var title: String?
            var body: String?
        }

        struct Android: Encodable {
            var collapseKey: String?
            var priority: String
            var ttl: String?
            var notification: AndroidNotification

            enum CodingKeys: String, CodingKey {
                case collapseKey = "collapse_key"
                case priority, ttl, notification
            }
        }

        struct AndroidNotification: Encodable {
            var titleLocKey: String?
            var titleLocArgs: [String]?
            var bodyLocKey: String?
            var bodyLocArgs: [String]?
            var channelID: String?
            var sound: String?
            var tag: String?
            var notificationPriority: String?

            enum CodingKeys: String, CodingKey {
                case titleLocKey = "title_loc_key"
                case titleLocArgs = "title_loc_args"
                case bodyLocKey = "body_loc_key"
                case bodyLocArgs = "body_loc_args"
                case channelID = "channel_id"
                case sound, tag
                case notificationPriority = "notification_priority"
            }
        }
    }
}
