import GRDB

extension FrostboxMigrations {
    /// Devices have a platform (`ios`: APNs, `android`: FCM); every device before is `ios`.
    /// The token's CHECK becomes the platform's: hex for iOS as before, an FCM registration
    /// token (1–4,096 of `A–Z a–z 0–9 _ : -`) for Android. SQLite cannot change a CHECK in
    /// place, so the table is copied once, ids and all (subscriptions, alerts and the outbox
    /// refer to them).
    static func v9DevicePlatform(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_v9 (
                    id INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE,
                    platform TEXT NOT NULL DEFAULT 'ios',
                    topic TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    locale TEXT,
                    created_at INTEGER NOT NULL,
                    registered_at INTEGER NOT NULL,
                    CHECK ((platform = 'ios' AND length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0
                                AND token NOT GLOB '*[^0-9a-f]*')
                           OR (platform = 'android' AND length(token) BETWEEN 1 AND 4096
                                AND token NOT GLOB '*[^A-Za-z0-9_:-]*'))
                );
                INSERT INTO device_v9 (id, token, platform, topic, environment, locale, created_at, registered_at)
                    SELECT id, token, 'ios', topic, environment, locale, created_at, registered_at FROM device;
                DROP TABLE device;
                ALTER TABLE device_v9 RENAME TO device;
                """)
    }
}
