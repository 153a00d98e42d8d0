import GRDB

extension FrostboxMigrations {
    /// The outbox for the fan-out shape (many devices, few distinct pushes):
    ///
    /// - devices get a stable integer id (`device.id`, an INTEGER PRIMARY KEY, so VACUUM keeps
    ///   it; the token stays UNIQUE and subscriptions still reference it), and outbox rows
    ///   carry that id instead of 64 characters of token text;
    /// - one row per device and event serves as both the queued push and the alerted mark (the
    ///   old `alerted_event` table goes);
    /// - each distinct push (payload, collapse-id, type, priority, expiration) is stored once
    ///   in `outbox_push` and referenced;
    /// - the apns-id is derived from the key (`FrostEvent.messageID(for:)`) and stored only for
    ///   rows that carry another one (those moved from the old table); no `json_valid` per row;
    /// - the per-row CHECKs compare with `=`/`OR`: SQLite evaluates a CHECK's `IN (…)` list by
    ///   building a temporary b-tree on every insert, which cost more than the row itself;
    /// - ids are plain rowids (no AUTOINCREMENT, whose sequence row is rewritten per insert):
    ///   a run's cursor only needs them increasing while it runs, and purge never deletes the
    ///   newest pending rows.
    ///
    /// Every old row moves, pending ones included, with its id, apns-id and exact payload.
    static func v7OutboxFanOut(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_v7 (
                    id INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE
                        CHECK (length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0
                               AND token NOT GLOB '*[^0-9a-f]*'),
                    topic TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    locale TEXT,
                    created_at INTEGER NOT NULL,
                    registered_at INTEGER NOT NULL
                );
                INSERT INTO device_v7 (token, topic, environment, locale, created_at, registered_at)
                    SELECT token, topic, environment, locale, created_at, registered_at FROM device ORDER BY token;
                DROP TABLE device;
                ALTER TABLE device_v7 RENAME TO device;
                CREATE TABLE outbox_push (
                    id INTEGER PRIMARY KEY,
                    collapse_id TEXT CHECK (collapse_id IS NULL OR length(CAST(collapse_id AS BLOB)) <= 64),
                    push_type TEXT NOT NULL CHECK (push_type = 'alert' OR push_type = 'background'),
                    priority INTEGER NOT NULL CHECK (priority = 5 OR priority = 10),
                    expiration INTEGER,
                    payload TEXT NOT NULL
                );
                CREATE TABLE outbox_v7 (
                    id INTEGER PRIMARY KEY,
                    device_id INTEGER NOT NULL REFERENCES device(id) ON DELETE CASCADE,
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
                    UNIQUE (device_id, box, night, level),
                    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
                    CHECK (status != 'failed' OR failure_class IS NOT NULL),
                    CHECK ((kind = 'all-clear') = (level = 0))
                );
                INSERT INTO outbox_push (id, collapse_id, push_type, priority, expiration, payload)
                    SELECT id, collapse_id, push_type, priority, expiration, payload FROM outbox;
                INSERT INTO outbox_v7 (id, device_id, box, night, level, kind, push_id, apns_id, topic, environment,
                        status, attempts, created_at, expires_at, run_id, last_attempt_at, delivered_at, delivered_apns_id,
                        failure_class, failure_reason)
                    SELECT o.id, d.id, o.box, CAST(replace(o.night, '-', '') AS INTEGER), o.level, o.kind, o.id, o.apns_id,
                        o.topic, o.environment, o.status, o.attempts, o.created_at,
                        COALESCE(a.expires_at, o.expiration, o.created_at + 86400), o.run_id, o.last_attempt_at,
                        o.delivered_at, o.delivered_apns_id, o.failure_class, o.failure_reason
                    FROM outbox AS o JOIN device AS d ON d.token = o.token
                    LEFT JOIN alerted_event AS a ON a.token = o.token AND a.box = o.box AND a.night = o.night AND a.level = o.level
                    ORDER BY o.id;
                DROP TABLE alerted_event;
                DROP TABLE outbox;
                ALTER TABLE outbox_v7 RENAME TO outbox;
                CREATE INDEX outbox_pending ON outbox(id) WHERE status = 'pending';
                CREATE INDEX outbox_on_box ON outbox(box, expires_at);
                """)
    }
}
