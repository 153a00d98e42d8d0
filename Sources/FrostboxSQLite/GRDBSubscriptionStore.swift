import FrostboxCore
import GRDB

/// The `SubscriptionStore` on SQLite. Writes go through the group committer, so each method
/// returns after its change is durable.
public struct GRDBSubscriptionStore: SubscriptionStore {
    let database: FrostboxDatabase
    /// Most subscriptions one device may hold; `subscribe` beyond it throws `StoreLimitError`.
    public let maximumSubscriptionsPerDevice: Int

    public init(database: FrostboxDatabase, maximumSubscriptionsPerDevice: Int = 50) {
        self.database = database
        self.maximumSubscriptionsPerDevice = maximumSubscriptionsPerDevice
    }

    @discardableResult
    public func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool {
        try await database.write { db in
            try Self.upsertDevice(db, registration, at: now)
        }
    }

    public func device(_ token: DeviceToken) async throws -> Device? {
        try await database.pool.read { db in
            try DeviceRecord.fetchOne(db, key: token.hex)?.device
        }
    }

    public func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange {
        let limit = maximumSubscriptionsPerDevice
        return try await database.write { db in
            if try DeviceRecord.fetchOne(db, key: token.hex) == nil {
                try Self.upsertDevice(db, DeviceRegistration(token: token), at: now)
            }
            if let existing = try Self.matching(db, token, new.coordinate, new.name).first {
                return SubscriptionChange(subscription: existing.subscription, created: false)
            }
            let count = try SubscriptionRecord.filter(SubscriptionRecord.Columns.token == token.hex).fetchCount(db)
            guard count < limit else {
                throw StoreLimitError("a device may hold at most \(limit) subscriptions")
            }
            var record = SubscriptionRecord(token: token, new: new, createdAt: now)
            try record.insert(db)
            return SubscriptionChange(subscription: record.subscription, created: true)
        }
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int {
        try await database.write { db in
            let ids = try Self.matching(db, token, coordinate, name).compactMap(\.id)
            return try SubscriptionRecord.deleteAll(db, keys: ids)
        }
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool {
        try await database.write { db in
            try SubscriptionRecord
                .filter(SubscriptionRecord.Columns.id == id && SubscriptionRecord.Columns.token == token.hex)
                .deleteAll(db) > 0
        }
    }

    public func subscriptions(of token: DeviceToken) async throws -> [Subscription] {
        try await database.pool.read { db in
            try SubscriptionRecord
                .filter(SubscriptionRecord.Columns.token == token.hex)
                .order(SubscriptionRecord.Columns.id)
                .fetchAll(db)
                .map(\.subscription)
        }
    }

    @discardableResult
    public func deleteDevice(_ token: DeviceToken) async throws -> Bool {
        // Subscriptions (and anything else keyed by the device) go with it: ON DELETE CASCADE.
        try await database.write { db in
            try DeviceRecord.deleteOne(db, key: token.hex)
        }
    }

    // MARK: Helpers

    /// Inserts or refreshes a device; true when it was new.
    static func upsertDevice(_ db: Database, _ registration: DeviceRegistration, at now: Int64) throws -> Bool {
        if var existing = try DeviceRecord.fetchOne(db, key: registration.token.hex) {
            existing.registeredAt = now
            if let topic = registration.topic { existing.topic = topic }
            if let environment = registration.environment { existing.environment = environment.rawValue }
            if let locale = registration.locale { existing.locale = locale }
            try existing.update(db)
            return false
        }
        try DeviceRecord(registration, at: now).insert(db)
        return true
    }

    static func matching(_ db: Database, _ token: DeviceToken, _ coordinate: Coordinate, _ name: PlaceName) throws -> [SubscriptionRecord] {
        let tolerance = 1e-6
        return try SubscriptionRecord
            .filter(SubscriptionRecord.Columns.token == token.hex)
            .filter(SubscriptionRecord.Columns.name == name.value)
            .filter(abs(SubscriptionRecord.Columns.latitude - coordinate.latitude) <= tolerance)
            .filter(abs(SubscriptionRecord.Columns.longitude - coordinate.longitude) <= tolerance)
            .order(SubscriptionRecord.Columns.id)
            .fetchAll(db)
    }
}
