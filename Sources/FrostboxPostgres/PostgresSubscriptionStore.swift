import FrostboxCore
import PostgresNIO

/// The `SubscriptionStore` on PostgreSQL. Each method is one statement (its own transaction),
/// committed before it returns. `subscribe` locks the device's row, so concurrent subscribes
/// of one device (from any instance) are counted against the per-device limit one after another.
public struct PostgresSubscriptionStore: SubscriptionStore {
    let database: PostgresDatabase
    /// Most subscriptions one device may hold; `subscribe` beyond it throws `StoreLimitError`.
    public let maximumSubscriptionsPerDevice: Int

    public init(database: PostgresDatabase, maximumSubscriptionsPerDevice: Int = 50) {
        self.database = database
        self.maximumSubscriptionsPerDevice = maximumSubscriptionsPerDevice
    }

    @discardableResult
    public func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool {
        // Facts the client did not send keep their stored value; `xmax = 0` only on a new row.
        let rows = try await database.client.query(
            """
            INSERT INTO device (token, topic, environment, locale, created_at, registered_at)
            VALUES (\(registration.token.hex), \(registration.topic), \(registration.environment?.rawValue), \(registration.locale), \(now), \(now))
            ON CONFLICT (token) DO UPDATE SET registered_at = excluded.registered_at,
                topic = COALESCE(excluded.topic, device.topic),
                environment = COALESCE(excluded.environment, device.environment),
                locale = COALESCE(excluded.locale, device.locale)
            RETURNING (xmax = 0)
            """, logger: database.logger)
        for try await inserted in rows.decode(Bool.self) { return inserted }
        throw PostgresStoreError("the device upsert returned no row")
    }

    public func device(_ token: DeviceToken) async throws -> Device? {
        let rows = try await database.client.query(
            "SELECT topic, environment, locale, created_at, registered_at FROM device WHERE token = \(token.hex)",
            logger: database.logger)
        for try await (topic, environment, locale, createdAt, registeredAt) in rows.decode((String?, String?, String?, Int64, Int64).self) {
            return Device(
                token: token, topic: topic, environment: environment.flatMap(APNsEnvironment.init(rawValue:)), locale: locale,
                createdAt: createdAt, registeredAt: registeredAt)
        }
        return nil
    }

    public func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange {
        // One round trip: the function (migration p3) registers, locks the device's row,
        // matches, counts and inserts in one statement's transaction.
        let s = new.settings
        let rows = try await database.client.query(
            """
            SELECT * FROM frostbox_subscribe(
                \(token.hex), \(new.coordinate.latitude), \(new.coordinate.longitude), \(new.coordinate.box.key), \(new.name.value),
                \(new.unit.rawValue), \(now), \(s.rule), \(s.frostRiskC), \(s.freezeC), \(s.hardFreezeC), \(s.allClear),
                \(Int32(clamping: maximumSubscriptionsPerDevice)))
            """, logger: database.logger)
        for try await (id, created, latitude, longitude, name, unit, createdAt, rule, frostRisk, freeze, hardFreeze, allClear) in rows.decode(
            (Int64, Bool, Double, Double, String, String, Int64, String?, Double?, Double?, Double?, Bool).self)
        {
            return SubscriptionChange(
                subscription: Subscription(
                    id: id, token: token, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
                    name: PlaceName(trusted: name), unit: TemperatureUnit(rawValue: unit) ?? .celsius, createdAt: createdAt,
                    settings: AlertSettings(rule: rule, frostRiskC: frostRisk, freezeC: freeze, hardFreezeC: hardFreeze, allClear: allClear)),
                created: created)
        }
        throw StoreLimitError("a device may hold at most \(maximumSubscriptionsPerDevice) subscriptions")
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int {
        let rows = try await database.client.query(
            """
            DELETE FROM subscription
            WHERE token = \(token.hex) AND name = \(name.value)
              AND abs(latitude - \(coordinate.latitude)) <= 1e-6 AND abs(longitude - \(coordinate.longitude)) <= 1e-6
            RETURNING id
            """, logger: database.logger)
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool {
        let rows = try await database.client.query(
            "DELETE FROM subscription WHERE id = \(id) AND token = \(token.hex) RETURNING id", logger: database.logger)
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    public func subscriptions(of token: DeviceToken) async throws -> [Subscription] {
        try await database.client.withConnection { connection in
            try await Self.select(connection, "WHERE token = \(token.hex) ORDER BY id", token: token, logger: database.logger)
        }
    }

    @discardableResult
    public func deleteDevice(_ token: DeviceToken) async throws -> Bool {
        // Subscriptions and outbox rows go with it: ON DELETE CASCADE.
        let rows = try await database.client.query(
            "DELETE FROM device WHERE token = \(token.hex) RETURNING id", logger: database.logger)
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    // MARK: Helpers

    /// The subscriptions of `token` matching `condition` (a query tail starting with WHERE).
    static func select(_ connection: PostgresConnection, _ condition: PostgresQuery, token: DeviceToken, logger: Logger) async throws -> [Subscription] {
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT id, latitude, longitude, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear
                FROM subscription
                """ + " " + condition.sql, binds: condition.binds)
        var result: [Subscription] = []
        let rows = try await connection.query(query, logger: logger)
        for try await (id, latitude, longitude, name, unit, createdAt, rule, frostRisk, freeze, hardFreeze, allClear) in rows.decode(
            (Int64, Double, Double, String, String, Int64, String?, Double?, Double?, Double?, Bool).self)
        {
            result.append(
                Subscription(
                    id: id, token: token, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
                    name: PlaceName(trusted: name), unit: TemperatureUnit(rawValue: unit) ?? .celsius, createdAt: createdAt,
                    settings: AlertSettings(rule: rule, frostRiskC: frostRisk, freezeC: freeze, hardFreezeC: hardFreeze, allClear: allClear)))
        }
        return result
    }
}
