import Foundation
import FrostboxCore

/// The parts of a push that many devices share (payload, collapse-id, type, priority,
/// expiration): both database adapters store each distinct one once, in `outbox_push`, and
/// the rows of the outbox refer to it.
public struct OutboxPush: Hashable, Sendable {
    public var collapseID: String?
    public var pushType: PushType
    public var priority: PushPriority
    public var expiration: Int64?
    public var payload: PushPayload

    /// The shared parts of `notification`.
    public init(_ notification: PushNotification) {
        collapseID = notification.collapseID
        pushType = notification.pushType
        priority = notification.priority
        expiration = notification.expiration
        payload = notification.payload
    }

    /// A stored push read back; nil when its type or priority is one this version cannot read.
    public init?(collapseID: String?, pushType: String, priority: Int, expiration: Int64?, payloadJSON: String) throws {
        guard let type = PushType(rawValue: pushType), let priority = PushPriority(rawValue: priority) else { return nil }
        self.collapseID = collapseID
        self.pushType = type
        self.priority = priority
        self.expiration = expiration
        payload = try Self.decoder.decode(PushPayload.self, from: Data(payloadJSON.utf8))
    }

    /// The exact push planned for one device and event: with the apns-id the row stored, or
    /// (nil) the one derived from device and event (`OutboxEntry.storedAPNsID`).
    public func notification(
        token: DeviceToken, event: FrostEvent, storedAPNsID: String?, topic: String?, environment: APNsEnvironment?
    ) -> PushNotification {
        PushNotification(
            token: token, topic: topic, environment: environment, apnsID: storedAPNsID ?? event.apnsID(for: token),
            collapseID: collapseID, pushType: pushType, priority: priority, expiration: expiration, payload: payload)
    }

    static let decoder = JSONDecoder()
}

extension OutboxEntry {
    /// The apns-id an outbox row stores: nil for the one derived from device and event (every
    /// planned alert's), so that only other ones (moved rows, tests) take room.
    public var storedAPNsID: String? {
        notification.apnsID == event.apnsID(for: token) ? nil : notification.apnsID
    }
}
