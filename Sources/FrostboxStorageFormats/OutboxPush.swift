import FrostboxCore

/// The parts of a push that many devices share (content, collapse id, priority,
/// expiration): both database adapters store each distinct one once, in `outbox_push`, and
/// the rows of the outbox refer to it.
public struct OutboxPush: Hashable, Sendable {
    /// The `push_type` column's value: every push Frostbox plans is a visible alert.
    public static let alertType = "alert"

    public var collapseID: String?
    public var priority: PushPriority
    public var expiration: Int64?
    public var content: AlertContent

    /// The shared parts of `notification`.
    public init(_ notification: PushNotification) {
        collapseID = notification.collapseID
        priority = notification.priority
        expiration = notification.expiration
        content = notification.content
    }

    /// A stored push read back; nil when its type or priority is one this version cannot read.
    public init?(collapseID: String?, pushType: String, priority: Int, expiration: Int64?, payloadJSON: String) throws {
        guard pushType == Self.alertType, let priority = PushPriority(rawValue: priority) else { return nil }
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        content = try AlertContent(outboxJSON: payloadJSON)
    }

    /// The exact push planned for one device and event: with the message id the row stored,
    /// or (nil) the one derived from device and event (`OutboxEntry.storedMessageID`).
    public func notification(
        token: DeviceToken, event: FrostEvent, storedMessageID: String?, platform: DevicePlatform = .ios, app: String?,
        environment: PushEnvironment?
    ) -> PushNotification {
        PushNotification(
            token: token, platform: platform, app: app, environment: environment, messageID: storedMessageID ?? event.messageID(for: token),
            collapseID: collapseID, priority: priority, expiration: expiration, content: content)
    }
}

extension OutboxEntry {
    /// The message id an outbox row stores: nil for the one derived from device and event
    /// (every planned alert's), so that only other ones (moved rows, tests) take room.
    public var storedMessageID: String? {
        notification.messageID == event.messageID(for: token) ? nil : notification.messageID
    }
}
