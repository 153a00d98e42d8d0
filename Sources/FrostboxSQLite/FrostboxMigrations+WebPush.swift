import GRDB

extension FrostboxMigrations {
    /// Browsers as a third platform (issue #46): a `web` device is named by the id the server
    /// gave its push subscription (`web:` and 22 base64url characters) and carries the
    /// subscription — the push service URL (unique: the same endpoint registered again is the
    /// same device) and the keys its messages are encrypted to. The token CHECK gains the web
    /// form (an Android token never has it); a device has a subscription exactly when it is a
    /// browser. SQLite cannot change a CHECK in place, so the table is copied once, ids and all
    /// (subscriptions and the outbox refer to them), and its index and the triggers that name
    /// it made again (SQLite checks every trigger when a table is renamed).
    static func v21WebPush(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_v21 (
                    id INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE,
                    platform TEXT NOT NULL DEFAULT 'ios',
                    app TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    locale TEXT,
                    created_at INTEGER NOT NULL,
                    registered_at INTEGER NOT NULL,
                    quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439),
                    quiet_end INTEGER CHECK ((quiet_end IS NULL) = (quiet_start IS NULL)
                        AND (quiet_end IS NULL OR (quiet_end BETWEEN 0 AND 1439 AND quiet_end != quiet_start))),
                    hard_freeze_breaks_quiet INTEGER NOT NULL DEFAULT 0 CHECK (hard_freeze_breaks_quiet = 0 OR hard_freeze_breaks_quiet = 1),
                    verified_at INTEGER,
                    web_endpoint TEXT UNIQUE CHECK (web_endpoint IS NULL
                        OR (length(web_endpoint) BETWEEN 9 AND 2048 AND web_endpoint GLOB 'https://*')),
                    web_p256dh TEXT CHECK (web_p256dh IS NULL OR length(web_p256dh) = 87),
                    web_auth TEXT CHECK (web_auth IS NULL OR length(web_auth) = 22),
                    CHECK ((platform = 'ios' AND length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0
                                AND token NOT GLOB '*[^0-9a-f]*')
                           OR (platform = 'android' AND length(token) BETWEEN 1 AND 4096
                                AND token NOT GLOB '*[^A-Za-z0-9_:-]*'
                                AND NOT (length(token) = 26 AND token GLOB 'web:*' AND substr(token, 5) NOT GLOB '*[^A-Za-z0-9_-]*'))
                           OR (platform = 'web' AND length(token) = 26 AND token GLOB 'web:*'
                                AND substr(token, 5) NOT GLOB '*[^A-Za-z0-9_-]*')),
                    CHECK ((platform = 'web') = (web_endpoint IS NOT NULL)
                           AND (web_endpoint IS NULL) = (web_p256dh IS NULL) AND (web_endpoint IS NULL) = (web_auth IS NULL))
                );
                INSERT INTO device_v21 (id, token, platform, app, environment, locale, created_at, registered_at,
                                        quiet_start, quiet_end, hard_freeze_breaks_quiet, verified_at)
                    SELECT id, token, platform, app, environment, locale, created_at, registered_at,
                           quiet_start, quiet_end, hard_freeze_breaks_quiet, verified_at
                    FROM device;
                DROP TRIGGER outbox_departed_on_unsubscribe;
                DROP TABLE device;
                ALTER TABLE device_v21 RENAME TO device;
                CREATE INDEX device_pending ON device(token) WHERE verified_at IS NULL;
                CREATE TRIGGER outbox_of_deleted_device BEFORE DELETE ON device BEGIN
                    DELETE FROM outbox WHERE device_id = old.id AND box IN (
                        SELECT box FROM subscription WHERE token = old.token
                        UNION SELECT box FROM outbox_departed WHERE device_id = old.id);
                    DELETE FROM outbox_departed WHERE device_id = old.id;
                END;
                CREATE TRIGGER outbox_departed_on_unsubscribe AFTER DELETE ON subscription BEGIN
                    INSERT OR REPLACE INTO outbox_departed (device_id, box, departed_at)
                        SELECT d.id, old.box, unixepoch() FROM device AS d
                        WHERE d.token = old.token
                            AND NOT EXISTS (SELECT 1 FROM subscription WHERE token = old.token AND box = old.box);
                END;
                """)
    }
}
