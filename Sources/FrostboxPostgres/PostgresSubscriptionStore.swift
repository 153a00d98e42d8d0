import FrostboxCore
import PostgresNIO

/// The `SubscriptionStore` on PostgreSQL. Each method is one statement (its own transaction),
/// committed before it returns. `subscribe` locks the device's row, so concurrent subscribes
/// of one device (from any instance) are counted against the per-device limit one after another.
public struct PostgresSubscriptionStore: SubscriptionStore, WebPushDirectory {
    let database: PostgresDatabase
    /// Most subscriptions one device may hold; `subscribe` beyond it throws `StoreLimitError`.
    public let maximumSubscriptionsPerDevice: Int

    public init(database: PostgresDatabase, maximumSubscriptionsPerDevice: Int = 50) {
        self.database = database
        self.maximumSubscriptionsPerDevice = maximumSubscriptionsPerDevice
    }

    @discardableResult
    public func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool {
        if registration.platform == .web && registration.webPush == nil { return try await refreshWeb(registration, at: now) }
        // Facts the client did not send keep their stored value; `xmax = 0` only on a new row.
        let quiet = registration.quietHours?.minutes
        let setsQuiet = registration.quietHours != nil
        let quietStart = quiet?.start.map { Int32($0) }, quietEnd = quiet?.end.map { Int32($0) }
        let rows = try await database.query(
            """
            INSERT INTO device (token, platform, app, environment, locale, created_at, registered_at,
                                quiet_start, quiet_end, hard_freeze_breaks_quiet)
            VALUES (\(registration.token.value), \(registration.platform.rawValue), \(registration.app), \(registration.environment?.rawValue),
                    \(registration.locale), \(now), \(now), \(quietStart), \(quietEnd), \(registration.hardFreezeBreaksQuietHours ?? false))
            ON CONFLICT (token) DO UPDATE SET registered_at = excluded.registered_at,
                verified_at = CASE
                    WHEN (excluded.app IS NOT NULL AND excluded.app IS DISTINCT FROM device.app)
                      OR (excluded.environment IS NOT NULL AND excluded.environment IS DISTINCT FROM device.environment)
                    THEN NULL ELSE device.verified_at END,
                app = COALESCE(excluded.app, device.app),
                environment = COALESCE(excluded.environment, device.environment),
                locale = COALESCE(excluded.locale, device.locale),
                quiet_start = CASE WHEN \(setsQuiet) THEN excluded.quiet_start ELSE device.quiet_start END,
                quiet_end = CASE WHEN \(setsQuiet) THEN excluded.quiet_end ELSE device.quiet_end END,
                hard_freeze_breaks_quiet = COALESCE(\(registration.hardFreezeBreaksQuietHours), device.hard_freeze_breaks_quiet)
            WHERE device.platform = excluded.platform
            RETURNING (xmax = 0)
            """, writes: true)
        for try await inserted in rows.decode(Bool.self) { return inserted }
        // No row: the token is stored as another platform (a device keeps its platform).
        if let stored = try await device(registration.token), stored.platform != registration.platform {
            throw PlatformMismatchError(stored: stored.platform, requested: registration.platform)
        }
        throw PostgresStoreError("the device upsert returned no row")
    }

    public func registerWebPush(
        _ registration: DeviceRegistration, newID: DeviceToken, at now: Int64
    ) async throws -> (
        token: DeviceToken, created: Bool
    ) {
        guard let web = registration.webPush else { throw UnknownDeviceError(newID) }
        let quiet = registration.quietHours?.minutes
        let setsQuiet = registration.quietHours != nil
        let quietStart = quiet?.start.map { Int32($0) }, quietEnd = quiet?.end.map { Int32($0) }
        // The endpoint names the device: registered again, it is the same one (its keys and
        // the facts sent refreshed, as `register` refreshes them).
        let rows = try await database.query(
            """
            INSERT INTO device (token, platform, app, locale, created_at, registered_at, quiet_start, quiet_end, hard_freeze_breaks_quiet,
                                web_endpoint, web_p256dh, web_auth)
            VALUES (\(newID.value), 'web', \(registration.app), \(registration.locale), \(now), \(now), \(quietStart), \(quietEnd),
                    \(registration.hardFreezeBreaksQuietHours ?? false), \(web.endpoint.url), \(web.p256dh), \(web.auth))
            ON CONFLICT (web_endpoint) DO UPDATE SET registered_at = excluded.registered_at,
                verified_at = CASE WHEN excluded.app IS NOT NULL AND excluded.app IS DISTINCT FROM device.app
                    THEN NULL ELSE device.verified_at END,
                app = COALESCE(excluded.app, device.app),
                locale = COALESCE(excluded.locale, device.locale),
                quiet_start = CASE WHEN \(setsQuiet) THEN excluded.quiet_start ELSE device.quiet_start END,
                quiet_end = CASE WHEN \(setsQuiet) THEN excluded.quiet_end ELSE device.quiet_end END,
                hard_freeze_breaks_quiet = COALESCE(\(registration.hardFreezeBreaksQuietHours), device.hard_freeze_breaks_quiet),
                web_p256dh = excluded.web_p256dh, web_auth = excluded.web_auth
            RETURNING token, (xmax = 0)
            """, writes: true)
        for try await (token, created) in rows.decode((String, Bool).self) { return (DeviceToken(trusted: token), created) }
        throw PostgresStoreError("the web device upsert returned no row")
    }

    /// `register` of a browser already registered (its settings): an update, never an insert —
    /// a browser is registered by its push subscription.
    private func refreshWeb(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool {
        let quiet = registration.quietHours?.minutes
        let setsQuiet = registration.quietHours != nil
        let quietStart = quiet?.start.map { Int32($0) }, quietEnd = quiet?.end.map { Int32($0) }
        let rows = try await database.query(
            """
            UPDATE device SET registered_at = \(now),
                verified_at = CASE WHEN \(registration.app)::text IS NOT NULL AND \(registration.app)::text IS DISTINCT FROM app
                    THEN NULL ELSE verified_at END,
                app = COALESCE(\(registration.app), app), locale = COALESCE(\(registration.locale), locale),
                quiet_start = CASE WHEN \(setsQuiet) THEN \(quietStart) ELSE quiet_start END,
                quiet_end = CASE WHEN \(setsQuiet) THEN \(quietEnd) ELSE quiet_end END,
                hard_freeze_breaks_quiet = COALESCE(\(registration.hardFreezeBreaksQuietHours), hard_freeze_breaks_quiet)
            WHERE token = \(registration.token.value) AND platform = 'web'
            RETURNING id
            """, writes: true)
        for try await _ in rows.decode(Int64.self) { return false }
        if let stored = try await device(registration.token) {
            throw PlatformMismatchError(stored: stored.platform, requested: registration.platform)
        }
        throw UnknownDeviceError(registration.token)
    }

    public func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription] {
        guard !tokens.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT token, web_endpoint, web_p256dh, web_auth FROM device
            WHERE platform = 'web' AND token = ANY(\(tokens.map(\.value)))
            """)
        var found: [DeviceToken: WebPushSubscription] = [:]
        for try await (token, endpoint, p256dh, auth) in rows.decode((String, String, String, String).self) {
            found[DeviceToken(trusted: token)] = WebPushSubscription(trustedEndpoint: endpoint, p256dh: p256dh, auth: auth)
        }
        return found
    }

    public func webDevice(at endpoint: WebPushEndpoint) async throws -> Device? {
        let rows = try await database.query("SELECT token FROM device WHERE web_endpoint = \(endpoint.url)")
        for try await token in rows.decode(String.self) { return try await device(DeviceToken(trusted: token)) }
        return nil
    }

    public func device(_ token: DeviceToken) async throws -> Device? {
        let rows = try await database.query(
            """
            SELECT platform, app, environment, locale, created_at, registered_at, quiet_start, quiet_end, hard_freeze_breaks_quiet,
                   verified_at, web_endpoint, web_p256dh, web_auth
            FROM device WHERE token = \(token.value)
            """)
        for try await (platform, app, environment, locale, createdAt, registeredAt, quietStart, quietEnd, breaks, verifiedAt, endpoint, p256dh, auth)
            in rows.decode((String, String?, String?, String?, Int64, Int64, Int32?, Int32?, Bool, Int64?, String?, String?, String?).self)
        {
            var device = Device(
                token: token, platform: DevicePlatform(rawValue: platform) ?? token.formPlatform, app: app,
                environment: environment.flatMap(PushEnvironment.init(rawValue:)), locale: locale,
                createdAt: createdAt, registeredAt: registeredAt)
            device.quietHours = PostgresNotifierStore.quietHours(quietStart, quietEnd)
            device.hardFreezeBreaksQuietHours = breaks
            device.verifiedAt = verifiedAt
            if let endpoint, let p256dh, let auth { device.webPush = WebPushSubscription(trustedEndpoint: endpoint, p256dh: p256dh, auth: auth) }
            return device
        }
        return nil
    }

    public func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange {
        // One round trip: the function `frostbox_subscribe_v4` (`PostgresMigrations`) registers, locks the device's row,
        // matches, counts and inserts in one statement's transaction.
        let rows: PostgresRows
        do {
            rows = try await subscribeRows(token, new, at: now)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "P0002" {
            // `no_data_found`: a browser's id that is not registered (the function registers no browser).
            throw UnknownDeviceError(token)
        }
        for try await row in rows {
            let columns = row.makeRandomAccess()
            return SubscriptionChange(subscription: try Self.subscription(columns, from: 1, token: token), created: try columns[0].decode(Bool.self))
        }
        throw StoreLimitError("a device may hold at most \(maximumSubscriptionsPerDevice) subscriptions")
    }

    private func subscribeRows(_ token: DeviceToken, _ new: NewSubscription, at now: Int64) async throws -> PostgresRows {
        let s = new.settings
        let after = s.window?.afterMinute.map { Int32($0) }, before = s.window?.beforeMinute.map { Int32($0) }
        return try await database.query(
            """
            SELECT * FROM frostbox_subscribe_v4(
                \(token.value), \(new.coordinate.latitude), \(new.coordinate.longitude), \(new.coordinate.box.key), \(new.name.value),
                \(new.unit.rawValue), \(now), \(s.rule), \(s.frostRiskC), \(s.freezeC), \(s.hardFreezeC), \(s.allClear),
                \(after), \(before), \(s.minProbability), \(Int32(clamping: maximumSubscriptionsPerDevice)))
            """, writes: true)
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int {
        let rows = try await database.query(
            """
            DELETE FROM subscription
            WHERE token = \(token.value) AND name = \(name.value)
              AND abs(latitude - \(coordinate.latitude)) <= 1e-6 AND abs(longitude - \(coordinate.longitude)) <= 1e-6
            RETURNING id
            """, writes: true)
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count
    }

    @discardableResult
    public func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool {
        let rows = try await database.query(
            "DELETE FROM subscription WHERE id = \(id) AND token = \(token.value) RETURNING id", writes: true)
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    public func subscriptions(of token: DeviceToken) async throws -> [Subscription] {
        let rows = try await database.query(
            "SELECT \(unescaped: Self.columns) FROM subscription WHERE token = \(token.value) ORDER BY id")
        var result: [Subscription] = []
        for try await row in rows { result.append(try Self.subscription(row.makeRandomAccess(), from: 0, token: token)) }
        return result
    }

    public func hasSubscriptions(in box: GeoBox) async throws -> Bool {
        try await database.query("SELECT EXISTS (SELECT 1 FROM subscription WHERE box = \(box.key))").single(Bool.self) ?? false
    }

    @discardableResult
    public func deleteDevice(_ token: DeviceToken) async throws -> Bool {
        // Subscriptions and outbox rows go with it: ON DELETE CASCADE.
        let rows = try await database.query(
            "DELETE FROM device WHERE token = \(token.value) RETURNING id", writes: true)
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    // MARK: Helpers

    /// A subscription's columns, in the order `subscription(_:from:token:)` reads them (the
    /// subscribe function returns them too, after its `created` column).
    static let columns =
        "id, latitude, longitude, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear, notify_after, notify_before,"
        + " min_probability"

    /// The subscription in `columns`, starting at column `first` of the row.
    static func subscription(_ row: PostgresRandomAccessRow, from first: Int, token: DeviceToken) throws -> Subscription {
        func value<T: PostgresDecodable>(_ offset: Int, _ type: T.Type) throws -> T { try row[first + offset].decode(T.self) }
        return Subscription(
            id: try value(0, Int64.self), token: token,
            coordinate: Coordinate(uncheckedLatitude: try value(1, Double.self), longitude: try value(2, Double.self)),
            name: PlaceName(trusted: try value(3, String.self)), unit: TemperatureUnit(rawValue: try value(4, String.self)) ?? .celsius,
            createdAt: try value(5, Int64.self),
            settings: AlertSettings(
                rule: try value(6, String?.self), frostRiskC: try value(7, Double?.self), freezeC: try value(8, Double?.self),
                hardFreezeC: try value(9, Double?.self), allClear: try value(10, Bool.self),
                window: PostgresNotifierStore.window(try value(11, Int32?.self), try value(12, Int32?.self)),
                minProbability: try value(13, Double?.self)))
    }
}
