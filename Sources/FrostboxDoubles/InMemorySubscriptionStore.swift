import FrostboxCore
import Synchronization

/// A `SubscriptionStore` in memory, with the same rules as the SQLite one (the contract suite
/// runs both): idempotent registration that keeps facts a client did not resend, duplicates
/// to 1e-6° returned instead of added, a per-device limit, ids in creation order, and device
/// deletion taking its subscriptions with it.
public final class InMemorySubscriptionStore: SubscriptionStore, WebPushDirectory {
    struct State: Sendable {
        var devices: [DeviceToken: Device] = [:]
        var subscriptions: [Subscription] = []
        var nextID: Int64 = 1
    }

    private let state = Mutex(State())
    /// Most subscriptions one device may hold; `subscribe` beyond it throws `StoreLimitError`.
    public let maximumSubscriptionsPerDevice: Int

    public init(maximumSubscriptionsPerDevice: Int = 50) {
        self.maximumSubscriptionsPerDevice = maximumSubscriptionsPerDevice
    }

    /// How many devices are stored (for tests checking that a refused request changed nothing).
    public var deviceCount: Int { state.withLock { $0.devices.count } }

    /// How many subscriptions are stored, over all devices.
    public var subscriptionCount: Int { state.withLock { $0.subscriptions.count } }
    /// The boxes at least one subscription names.
    public var subscribedBoxes: Set<GeoBox> { state.withLock { Set($0.subscriptions.map(\.box)) } }

    @discardableResult
    public func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool {
        try state.withLock { state throws in
            guard var device = state.devices[registration.token] else {
                guard registration.platform != .web || registration.webPush != nil else { throw UnknownDeviceError(registration.token) }
                state.devices[registration.token] = Self.newDevice(registration, at: now)
                return true
            }
            guard device.platform == registration.platform else {
                throw PlatformMismatchError(stored: device.platform, requested: registration.platform)
            }
            if let app = registration.app, app != device.app { device.verifiedAt = nil }
            if let environment = registration.environment, environment != device.environment { device.verifiedAt = nil }
            device.registeredAt = now
            device.app = registration.app ?? device.app
            device.environment = registration.environment ?? device.environment
            device.locale = registration.locale ?? device.locale
            device.apply(registration)
            state.devices[registration.token] = device
            return false
        }
    }

    public func registerWebPush(
        _ registration: DeviceRegistration, newID: DeviceToken, at now: Int64
    ) async throws -> (
        token: DeviceToken, created: Bool
    ) {
        guard let web = registration.webPush else { throw UnknownDeviceError(newID) }
        let stored = state.withLock { state in state.devices.values.first { $0.webPush?.endpoint.url == web.endpoint.url }?.token }
        var registration = registration
        registration.platform = .web
        registration.token = stored ?? newID
        let created = try await register(registration, at: now)
        state.withLock { $0.devices[registration.token]?.webPush = web }
        return (registration.token, created)
    }

    public func webDevice(at endpoint: WebPushEndpoint) async throws -> Device? {
        state.withLock { state in state.devices.values.first { $0.webPush?.endpoint.url == endpoint.url } }
    }

    public func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription] {
        state.withLock { state in
            var found: [DeviceToken: WebPushSubscription] = [:]
            for token in tokens { if let web = state.devices[token]?.webPush { found[token] = web } }
            return found
        }
    }

    public func device(_ token: DeviceToken) async throws -> Device? {
        state.withLock { $0.devices[token] }
    }

    public func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange {
        let limit = maximumSubscriptionsPerDevice
        return try state.withLock { state throws -> SubscriptionChange in
            if state.devices[token] == nil {
                guard token.formPlatform != .web else { throw UnknownDeviceError(token) }
                state.devices[token] = Self.newDevice(DeviceRegistration(token: token), at: now)
            }
            if let existing = state.subscriptions.first(where: { Self.matches($0, token, new.coordinate, new.name) }) {
                return SubscriptionChange(subscription: existing, created: false)
            }
            guard state.subscriptions.count(where: { $0.token == token }) < limit else {
                throw StoreLimitError("a device may hold at most \(limit) subscriptions")
            }
            let subscription = Subscription(
                id: state.nextID, token: token, coordinate: new.coordinate, name: new.name, unit: new.unit, createdAt: now,
                settings: new.settings)
            state.nextID += 1
            state.subscriptions.append(subscription)
            return SubscriptionChange(subscription: subscription, created: true)
        }
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int {
        state.withLock { state in
            let before = state.subscriptions.count
            state.subscriptions.removeAll { Self.matches($0, token, coordinate, name) }
            return before - state.subscriptions.count
        }
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool {
        state.withLock { state in
            guard let index = state.subscriptions.firstIndex(where: { $0.id == id && $0.token == token }) else { return false }
            state.subscriptions.remove(at: index)
            return true
        }
    }

    public func subscriptions(of token: DeviceToken) async throws -> [Subscription] {
        state.withLock { state in state.subscriptions.filter { $0.token == token } }
    }

    public func hasSubscriptions(in box: GeoBox) async throws -> Bool {
        state.withLock { state in state.subscriptions.contains { $0.box == box } }
    }

    @discardableResult
    public func deleteDevice(_ token: DeviceToken) async throws -> Bool {
        state.withLock { state in
            guard state.devices.removeValue(forKey: token) != nil else { return false }
            state.subscriptions.removeAll { $0.token == token }
            return true
        }
    }

    static func newDevice(_ registration: DeviceRegistration, at now: Int64) -> Device {
        var device = Device(
            token: registration.token, platform: registration.platform, app: registration.app, environment: registration.environment,
            locale: registration.locale, createdAt: now, registeredAt: now)
        device.apply(registration)
        device.webPush = registration.webPush
        return device
    }

    /// The SQLite store's match: same device and name, each axis within 1e-6° (plain
    /// differences, as its SQL compares them).
    static func matches(_ subscription: Subscription, _ token: DeviceToken, _ coordinate: Coordinate, _ name: PlaceName) -> Bool {
        subscription.token == token && subscription.name == name
            && abs(subscription.coordinate.latitude - coordinate.latitude) <= 1e-6
            && abs(subscription.coordinate.longitude - coordinate.longitude) <= 1e-6
    }
}

extension Device {
    /// Takes the quiet-hours settings a registration changes.
    fileprivate mutating func apply(_ registration: DeviceRegistration) {
        switch registration.quietHours {
        case .set(let quiet): quietHours = quiet
        case .clear: quietHours = nil
        case nil: break
        }
        hardFreezeBreaksQuietHours = registration.hardFreezeBreaksQuietHours ?? hardFreezeBreaksQuietHours
    }
}
