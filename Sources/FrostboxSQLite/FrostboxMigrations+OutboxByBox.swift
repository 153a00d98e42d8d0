import GRDB

extension FrostboxMigrations {
    /// The outbox keyed by box first: a run writes its alerts box by box, chunk by chunk, and
    /// every index keyed by device id took one random insert per alert. With a commit per
    /// chunk that dirtied nearly every page of that index in every commit, so a chunk's write
    /// grew with the size of the outbox (measured: 1.1M alerts in 100 commits took 10.1 s of
    /// SQLite time with the device-first key, a chunk ever slower, and 1.9 s, flat, with this
    /// one; docs/benchmarks.md, "The outbox keyed by box").
    ///
    /// - `UNIQUE (box, device_id, night, level)` replaces `(device_id, box, night, level)`:
    ///   the same rule (one row per device and event), in write order. It also serves the
    ///   alerted-events read by box, so `outbox_on_box` goes, and a device's rows in one box
    ///   are one seek (the device id second), which the trigger below relies on;
    /// - `outbox_held` is keyed `(box, device_id, night)` for the same reason;
    /// - `device_id` no longer has a foreign key: SQLite's `ON DELETE CASCADE` would need an
    ///   index led by the device id, the very index that cost the time. A device's rows are
    ///   instead deleted by the trigger `outbox_of_deleted_device`, box by box, in the boxes
    ///   the device subscribes to and those it has left (`outbox_departed`: one row per
    ///   device and box it unsubscribed from, written by `outbox_departed_on_unsubscribe`
    ///   whether or not it had alerts there yet, so an alert planned just before the
    ///   unsubscription and written after it is found too). Purge drops departed rows a day
    ///   old whose box holds no row of the device any more.
    ///
    /// Every row moves with its id. Rows whose device no longer subscribes to their box are
    /// recorded as departed on the way.
    static func v16OutboxByBox(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE outbox_departed (
                    device_id INTEGER NOT NULL,
                    box INTEGER NOT NULL,
                    departed_at INTEGER NOT NULL,
                    PRIMARY KEY (device_id, box)
                ) WITHOUT ROWID;
                CREATE TABLE outbox_v16 (
                    id INTEGER PRIMARY KEY,
                    device_id INTEGER NOT NULL,
                    box INTEGER NOT NULL CHECK (box >= 0),
                    night INTEGER NOT NULL CHECK (night BETWEEN 10000101 AND 99991231),
                    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
                    kind TEXT NOT NULL CHECK (kind = 'frost' OR kind = 'escalation' OR kind = 'all-clear'),
                    push_id INTEGER NOT NULL,
                    apns_id TEXT CHECK (apns_id IS NULL OR length(apns_id) = 36),
                    topic TEXT,
                    environment TEXT CHECK (environment = 'production' OR environment = 'sandbox'),
                    status TEXT NOT NULL DEFAULT 'pending' CHECK (status = 'pending' OR status = 'delivered' OR status = 'failed'),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    run_id INTEGER REFERENCES notify_run(id) ON DELETE SET NULL,
                    last_attempt_at INTEGER,
                    delivered_at INTEGER,
                    delivered_apns_id TEXT,
                    failure_class TEXT CHECK (failure_class = 'temporary' OR failure_class = 'permanent' OR failure_class = 'invalid-token'
                                              OR failure_class = 'auth' OR failure_class = 'expired'),
                    failure_reason TEXT,
                    not_before INTEGER,
                    frost_starts_at INTEGER,
                    UNIQUE (box, device_id, night, level),
                    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
                    CHECK (status != 'failed' OR failure_class IS NOT NULL),
                    CHECK ((kind = 'all-clear') = (level = 0))
                );
                INSERT INTO outbox_v16 (id, device_id, box, night, level, kind, push_id, apns_id, topic, environment,
                        status, attempts, created_at, expires_at, run_id, last_attempt_at, delivered_at, delivered_apns_id,
                        failure_class, failure_reason, not_before, frost_starts_at)
                    SELECT id, device_id, box, night, level, kind, push_id, apns_id, topic, environment,
                        status, attempts, created_at, expires_at, run_id, last_attempt_at, delivered_at, delivered_apns_id,
                        failure_class, failure_reason, not_before, frost_starts_at
                    FROM outbox ORDER BY id;
                DROP TABLE outbox;
                ALTER TABLE outbox_v16 RENAME TO outbox;
                CREATE INDEX outbox_pending ON outbox(id) WHERE status = 'pending';
                CREATE INDEX outbox_held ON outbox(box, device_id, night) WHERE status = 'pending' AND not_before IS NOT NULL;
                INSERT OR IGNORE INTO outbox_departed (device_id, box, departed_at)
                    SELECT DISTINCT o.device_id, o.box, unixepoch() FROM outbox AS o JOIN device AS d ON d.id = o.device_id
                    WHERE NOT EXISTS (SELECT 1 FROM subscription AS s WHERE s.box = o.box AND s.token = d.token);
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
