/// Where devices and their subscriptions live. Every method returns only after its write is
/// durable.
public protocol SubscriptionStore: Sendable {
    /// Registers a device (idempotent); refreshes `registeredAt` and any facts given.
    /// Returns true when the device was new. A token's platform is fixed: registering a
    /// stored token as another platform throws `PlatformMismatchError` and changes nothing.
    /// A verified device registered with another app or environment is pending again (no
    /// push has reached it there yet).
    @discardableResult
    func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool

    /// Registers a browser's push subscription (`registration.webPush`): the device whose
    /// endpoint it is — registering the same endpoint again is the same device, its keys and
    /// facts refreshed — or a new device named `newID`. Returns the device's id and whether it
    /// is new.
    func registerWebPush(_ registration: DeviceRegistration, newID: DeviceToken, at now: Int64) async throws -> (token: DeviceToken, created: Bool)

    /// The device, or nil when unknown.
    func device(_ token: DeviceToken) async throws -> Device?

    /// The browser whose push subscription has this endpoint, or nil when none has.
    func webDevice(at endpoint: WebPushEndpoint) async throws -> Device?

    /// Adds a subscription, registering the device on the way — but a browser's, which only
    /// `registerWebPush` registers (`UnknownDeviceError` when it is not). A subscription with
    /// the same point (to 1e-6°) and name is returned instead of a second one.
    func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange

    /// Removes the device's subscriptions at this point (to 1e-6°) with this name; returns how many.
    @discardableResult
    func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int

    /// Removes one subscription by id; false when the device has no such subscription.
    @discardableResult
    func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool

    /// The device's subscriptions, oldest first.
    func subscriptions(of token: DeviceToken) async throws -> [Subscription]

    /// Whether any device subscribes to a place in `box` (a subscription there costs no new
    /// forecast).
    func hasSubscriptions(in box: GeoBox) async throws -> Bool

    /// Removes the device and everything stored about it; false when it was unknown.
    @discardableResult
    func deleteDevice(_ token: DeviceToken) async throws -> Bool
}

/// The result of `subscribe`: the stored subscription and whether it was created now.
public struct SubscriptionChange: Sendable, Hashable {
    public var subscription: Subscription
    public var created: Bool

    public init(subscription: Subscription, created: Bool) {
        self.subscription = subscription
        self.created = created
    }
}

/// A store refusing a write because a limit was reached (e.g. subscriptions per device).
public struct StoreLimitError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A store refusing a write for a device it does not know and cannot register on the way
/// (a browser's device id that no registration gave, or one deleted since).
public struct UnknownDeviceError: Error, Sendable, Equatable {
    public var token: DeviceToken
    public init(_ token: DeviceToken) { self.token = token }

    public var message: String { "no browser is registered under this device id; register its push subscription first" }
}

/// A store refusing to register a token as another platform than the one it is stored as
/// (a device changes platform only by a new token).
public struct PlatformMismatchError: Error, Sendable, Equatable {
    /// The platform the token is stored as.
    public var stored: DevicePlatform
    /// The platform the registration asked for.
    public var requested: DevicePlatform

    public init(stored: DevicePlatform, requested: DevicePlatform) {
        self.stored = stored
        self.requested = requested
    }

    public var message: String {
        "this token is registered as a\(stored == .ios ? "n" : "") \(stored) device; a device cannot become \(requested) (register the new token instead)"
    }
}
