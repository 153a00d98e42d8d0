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

extension OutboxPush {
    /// A push as a dictionary key for finding the stored copy among a batch's: hashed over the
    /// UTF-8 bytes of the parts that tell pushes apart (text, frost data, collapse id,
    /// priority, expiration) instead of `String`'s Unicode-normalising hash, which was a tenth
    /// of an outbox write (place names are often not ASCII). Equal keys are equal pushes with
    /// byte-identical text, so a hash over bytes stays consistent with equality; two pushes
    /// whose text differs only in Unicode normal form are two keys (two stored copies of what
    /// would be the same payload, never one payload for two different pushes).
    public struct ExactKey: Hashable, Sendable {
        public let push: OutboxPush

        public init(_ push: OutboxPush) { self.push = push }

        public static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
            lhs.push == rhs.push && Self.sameBytes(lhs.push.content.title, rhs.push.content.title)
                && Self.sameBytes(lhs.push.content.body, rhs.push.content.body)
                && Self.sameBytes(lhs.push.collapseID, rhs.push.collapseID)
        }

        public func hash(into hasher: inout Hasher) {
            let content = push.content
            Self.combine(content.title, into: &hasher)
            Self.combine(content.body, into: &hasher)
            Self.combine(push.collapseID, into: &hasher)
            hasher.combine(push.priority)
            hasher.combine(push.expiration)
            hasher.combine(content.frost?.minimumC)
            Self.combine(content.frost?.level, into: &hasher)
            Self.combine(content.frost?.night, into: &hasher)
        }

        private static func sameBytes(_ lhs: String?, _ rhs: String?) -> Bool {
            guard let lhs, let rhs else { return lhs == nil && rhs == nil }
            return lhs.utf8.elementsEqual(rhs.utf8)
        }

        private static func combine(_ text: String?, into hasher: inout Hasher) {
            guard var text else { return hasher.combine(0 as UInt8) }
            hasher.combine(1 as UInt8)
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(text.utf8.count)
        }
    }
}

extension OutboxEntry {
    /// The message id an outbox row stores: nil for the one derived from device and event
    /// (every planned alert's), so that only other ones (moved rows, tests) take room.
    public var storedMessageID: String? {
        notification.messageID == event.messageID(for: token) ? nil : notification.messageID
    }
}
