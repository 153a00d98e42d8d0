import FrostboxCore
import GRDB

/// The `SubscriptionStore` on SQLite. Writes go through the group committer, so each method
/// returns after its change is durable.
public struct GRDBSubscriptionStore: SubscriptionStore, WebPushDirectory {
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

    public func registerWebPush(
        _ registration: DeviceRegistration, newID: DeviceToken, at now: Int64
    ) async throws -> (
        token: DeviceToken, created: Bool
    ) {
        guard let web = registration.webPush else { throw UnknownDeviceError(newID) }
        return try await database.write { db in
            let byEndpoint = try db.cachedStatement(sql: "SELECT token FROM device WHERE web_endpoint = ?")
            var registration = registration
            registration.platform = .web
            guard let stored = try String.fetchOne(byEndpoint, arguments: [web.endpoint.url]) else {
                registration.token = newID
                try Self.insertDevice(db, registration, at: now)
                return (newID, true)
            }
            registration.token = DeviceToken(trusted: stored)
            _ = try Self.upsertDevice(db, registration, at: now)
            let keys = try db.cachedStatement(sql: "UPDATE device SET web_p256dh = ?, web_auth = ? WHERE token = ?")
            try keys.execute(arguments: [web.p256dh, web.auth, stored])
            return (registration.token, false)
        }
    }

    public func webDevice(at endpoint: WebPushEndpoint) async throws -> Device? {
        let token = try await database.pool.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT token FROM device WHERE web_endpoint = ?"), arguments: [endpoint.url])
        }
        guard let token else { return nil }
        return try await device(DeviceToken(trusted: token))
    }

    public func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription] {
        try await database.pool.read { db in
            var found: [DeviceToken: WebPushSubscription] = [:]
            for chunk in stride(from: 0, to: tokens.count, by: 500).map({ tokens[$0..<min(tokens.count, $0 + 500)] }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT token, web_endpoint, web_p256dh, web_auth FROM device WHERE platform = 'web' AND token IN (\(marks))",
                    arguments: StatementArguments(chunk.map(\.value)))
                while let row = try rows.next() {
                    found[DeviceToken(trusted: row[0])] = WebPushSubscription(trustedEndpoint: row[1], p256dh: row[2], auth: row[3])
                }
            }
            return found
        }
    }

    public func device(_ token: DeviceToken) async throws -> Device? {
        try await database.pool.read { db in
            try DeviceRecord.fetchOne(db, key: ["token": token.value])?.device
        }
    }

    public func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange {
        let limit = maximumSubscriptionsPerDevice
        return try await database.write { db in
            // The hot path of the device API: cached statements, no SQL generated per request.
            let known = try db.cachedStatement(sql: "SELECT 1 FROM device WHERE token = ?")
            if try Int.fetchOne(known, arguments: [token.value]) == nil {
                // A browser is registered by its push subscription only.
                guard token.formPlatform != .web else { throw UnknownDeviceError(token) }
                try Self.insertDevice(db, DeviceRegistration(token: token), at: now)
            }
            if let existing = try Self.matching(db, token, new.coordinate, new.name).first {
                return SubscriptionChange(subscription: existing.subscription, created: false)
            }
            let counter = try db.cachedStatement(sql: "SELECT count(*) FROM subscription WHERE token = ?")
            let count = try Int.fetchOne(counter, arguments: [token.value]) ?? 0
            guard count < limit else {
                throw StoreLimitError("a device may hold at most \(limit) subscriptions")
            }
            var record = SubscriptionRecord(token: token, new: new, createdAt: now)
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO subscription
                        (token, latitude, longitude, box, name, unit, created_at,
                         rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear, notify_after, notify_before, min_probability)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            try insert.execute(arguments: [
                record.token, record.latitude, record.longitude, record.box, record.name, record.unit,
                record.createdAt, record.rule, record.frostRiskC, record.freezeC, record.hardFreezeC, record.allClear,
                record.notifyAfter, record.notifyBefore, record.minProbability,
            ])
            record.id = db.lastInsertedRowID
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
                .filter(SubscriptionRecord.Columns.id == id && SubscriptionRecord.Columns.token == token.value)
                .deleteAll(db) > 0
        }
    }

    public func subscriptions(of token: DeviceToken) async throws -> [Subscription] {
        try await database.pool.read { db in
            try SubscriptionRecord
                .filter(SubscriptionRecord.Columns.token == token.value)
                .order(SubscriptionRecord.Columns.id)
                .fetchAll(db)
                .map(\.subscription)
        }
    }

    public func hasSubscriptions(in box: GeoBox) async throws -> Bool {
        try await database.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM subscription WHERE box = ?)", arguments: [box.key]) ?? false
        }
    }

    @discardableResult
    public func deleteDevice(_ token: DeviceToken) async throws -> Bool {
        // Subscriptions go with it (ON DELETE CASCADE), its outbox rows by the trigger
        // `outbox_of_deleted_device`.
        try await database.write { db in
            try DeviceRecord.deleteOne(db, key: ["token": token.value])
        }
    }

    // MARK: Helpers

    /// Inserts or refreshes a device; true when it was new.
    static func upsertDevice(_ db: Database, _ registration: DeviceRegistration, at now: Int64) throws -> Bool {
        // Facts the client did not send keep their stored value (COALESCE with the old row);
        // another app or environment makes a verified device pending again; the platform is
        // fixed (a row of another platform is not updated, and refused below).
        let update = try db.cachedStatement(
            sql: """
                UPDATE device SET registered_at = ?1,
                    verified_at = CASE WHEN (?3 IS NOT NULL AND ?3 IS NOT app) OR (?4 IS NOT NULL AND ?4 IS NOT environment)
                        THEN NULL ELSE verified_at END,
                    app = COALESCE(?3, app), environment = COALESCE(?4, environment), locale = COALESCE(?5, locale),
                    quiet_start = CASE WHEN ?7 THEN ?8 ELSE quiet_start END, quiet_end = CASE WHEN ?7 THEN ?9 ELSE quiet_end END,
                    hard_freeze_breaks_quiet = COALESCE(?10, hard_freeze_breaks_quiet)
                WHERE token = ?6 AND platform = ?2
                """)
        let quiet = registration.quietHours?.minutes
        try update.execute(arguments: [
            now, registration.platform.rawValue, registration.app, registration.environment?.rawValue, registration.locale,
            registration.token.value, registration.quietHours != nil, quiet?.start, quiet?.end, registration.hardFreezeBreaksQuietHours,
        ])
        if db.changesCount > 0 { return false }
        let stored = try db.cachedStatement(sql: "SELECT platform FROM device WHERE token = ?")
        if let platform = try String.fetchOne(stored, arguments: [registration.token.value]) {
            throw PlatformMismatchError(stored: DevicePlatform(rawValue: platform) ?? registration.token.formPlatform, requested: registration.platform)
        }
        // A browser is registered by its push subscription only (`registerWebPush`).
        guard registration.platform != .web || registration.webPush != nil else { throw UnknownDeviceError(registration.token) }
        try insertDevice(db, registration, at: now)
        return true
    }

    static func insertDevice(_ db: Database, _ registration: DeviceRegistration, at now: Int64) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO device (token, platform, app, environment, locale, created_at, registered_at,
                    quiet_start, quiet_end, hard_freeze_breaks_quiet, web_endpoint, web_p256dh, web_auth)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let quiet = registration.quietHours?.minutes
        let web = registration.webPush
        try insert.execute(arguments: [
            registration.token.value, registration.platform.rawValue, registration.app, registration.environment?.rawValue,
            registration.locale, now, now, quiet?.start, quiet?.end, registration.hardFreezeBreaksQuietHours ?? false,
            web?.endpoint.url, web?.p256dh, web?.auth,
        ])
    }

    static func matching(_ db: Database, _ token: DeviceToken, _ coordinate: Coordinate, _ name: PlaceName) throws -> [SubscriptionRecord] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT * FROM subscription
                WHERE token = ? AND name = ? AND abs(latitude - ?) <= 1e-6 AND abs(longitude - ?) <= 1e-6
                ORDER BY id
                """)
        return try SubscriptionRecord.fetchAll(
            statement, arguments: [token.value, name.value, coordinate.latitude, coordinate.longitude])
    }
}
