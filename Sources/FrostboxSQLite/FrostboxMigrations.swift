import GRDB

/// The schema, as an append-only list of named migrations. A landed migration is never
/// edited: change the schema by appending a new one. Migrations use SQL, not app types.
public enum FrostboxMigrations {
    /// Every migration in order.
    public static var migrator: DatabaseMigrator { migrator(of: all[...]) }

    /// The migrations before the one named `name`: the schema of a file from an earlier
    /// version (for tests of that migration).
    static func migrator(before name: String) -> DatabaseMigrator { migrator(of: all.prefix { $0.0 != name }) }

    private static func migrator(of migrations: ArraySlice<(String, @Sendable (Database) throws -> Void)>) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, body) in migrations {
            migrator.registerMigration(name, migrate: body)
        }
        return migrator
    }

    static let all: [(String, @Sendable (Database) throws -> Void)] = [
        ("v1-devices-subscriptions", v1DevicesSubscriptions),
        ("v3-forecasts", v3Forecasts),
        ("v4-notifier", v4Notifier),
        ("v5-places", v5Places),
        ("v6-notify-run-degraded", v6NotifyRunDegraded),
        ("v7-outbox-fan-out", v7OutboxFanOut),
        ("v8-places-own-file", v8PlacesOwnFile),
        ("v9-device-platform", v9DevicePlatform),
        ("v10-model-runs", v10ModelRuns),
        ("v11-run-platforms", v11RunPlatforms),
        ("v12-quiet-hours", v12QuietHours),
        ("v13-storage-probe", v13StorageProbe),
        ("v14-device-verification", v14DeviceVerification),
        ("v15-notify-windows", v15NotifyWindows),
        ("v16-outbox-by-box", v16OutboxByBox),
        ("v17-ensembles", v17Ensembles),
        ("v18-night-records", v18NightRecords),
        ("v19-night-checks", v19NightChecks),
        ("v20-push-names", v20PushNames),
        ("v21-web-push", v21WebPush),
    ]

    /// Places live in their own file now (`PlacesDatabase`): the device database drops its
    /// place tables. `FrostboxDatabase` moves any stored places over before this runs.
    static func v8PlacesOwnFile(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TABLE IF EXISTS place_name_box;
                DROP TABLE IF EXISTS place_name_cell;
                DROP TABLE IF EXISTS place_name_tier;
                DROP TABLE IF EXISTS place;
                DROP TABLE IF EXISTS admin1;
                DROP TABLE IF EXISTS country;
                """)
    }

    static func v1DevicesSubscriptions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device (
                    token TEXT PRIMARY KEY NOT NULL
                        CHECK (length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0
                               AND token NOT GLOB '*[^0-9a-f]*'),
                    topic TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    locale TEXT,
                    created_at INTEGER NOT NULL,
                    registered_at INTEGER NOT NULL
                );
                CREATE TABLE subscription (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token TEXT NOT NULL REFERENCES device(token) ON DELETE CASCADE,
                    latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
                    longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
                    box INTEGER NOT NULL,
                    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
                    unit TEXT NOT NULL CHECK (unit IN ('C', 'F')),
                    created_at INTEGER NOT NULL,
                    rule TEXT,
                    frost_risk_c REAL,
                    freeze_c REAL,
                    hard_freeze_c REAL,
                    all_clear INTEGER NOT NULL DEFAULT 0 CHECK (all_clear IN (0, 1))
                );
                CREATE INDEX subscription_on_token ON subscription(token);
                CREATE INDEX subscription_on_box ON subscription(box, token);
                """)
    }
}
