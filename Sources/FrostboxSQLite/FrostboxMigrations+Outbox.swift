import GRDB

extension FrostboxMigrations {
    /// The outbox for the fan-out shape (many devices, few distinct pushes): one row per
    /// device and event serves as both the queued push and the alerted mark (the old
    /// `alerted_event` table goes); each distinct push (payload, collapse-id, type, priority,
    /// expiration) is stored once in `outbox_push` and referenced; devices are referenced by a
    /// small integer (`notify_device`) instead of their token text; the apns-id is derived
    /// from the key (`FrostEvent.apnsID(for:)`) and stored only for rows that carry another
    /// one (those moved from the old table); no `json_valid` per row. Every old row moves,
    /// pending ones included, with its id, apns-id and exact payload.
    static func v7OutboxFanOut(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notify_device (
                    id INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE REFERENCES device(token) ON DELETE CASCADE
                );
                CREATE TABLE outbox_push (
                    id INTEGER PRIMARY KEY,
                    collapse_id TEXT CHECK (collapse_id IS NULL OR length(CAST(collapse_id AS BLOB)) <= 64),
                    push_type TEXT NOT NULL CHECK (push_type IN ('alert', 'background')),
                    priority INTEGER NOT NULL CHECK (priority IN (5, 10)),
                    expiration INTEGER,
                    payload TEXT NOT NULL
                );
                CREATE TABLE outbox_entry (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id INTEGER NOT NULL REFERENCES notify_device(id) ON DELETE CASCADE,
                    box INTEGER NOT NULL CHECK (box >= 0),
                    night INTEGER NOT NULL CHECK (night BETWEEN 10000101 AND 99991231),
                    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
                    kind TEXT NOT NULL CHECK (kind IN ('frost', 'escalation', 'all-clear')),
                    push_id INTEGER NOT NULL,
                    apns_id TEXT CHECK (apns_id IS NULL OR length(apns_id) = 36),
                    topic TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    run_id INTEGER REFERENCES notify_run(id) ON DELETE SET NULL,
                    last_attempt_at INTEGER,
                    delivered_at INTEGER,
                    delivered_apns_id TEXT,
                    failure_class TEXT CHECK (failure_class IN ('temporary', 'permanent', 'invalid-token', 'auth', 'expired')),
                    failure_reason TEXT,
                    UNIQUE (device_id, box, night, level),
                    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
                    CHECK (status != 'failed' OR failure_class IS NOT NULL),
                    CHECK ((kind = 'all-clear') = (level = 0))
                );
                INSERT INTO notify_device (token) SELECT DISTINCT token FROM outbox ORDER BY token;
                INSERT INTO outbox_push (id, collapse_id, push_type, priority, expiration, payload)
                    SELECT id, collapse_id, push_type, priority, expiration, payload FROM outbox;
                INSERT INTO outbox_entry (id, device_id, box, night, level, kind, push_id, apns_id, topic, environment,
                        status, attempts, created_at, expires_at, run_id, last_attempt_at, delivered_at, delivered_apns_id,
                        failure_class, failure_reason)
                    SELECT o.id, d.id, o.box, CAST(replace(o.night, '-', '') AS INTEGER), o.level, o.kind, o.id, o.apns_id,
                        o.topic, o.environment, o.status, o.attempts, o.created_at,
                        COALESCE(a.expires_at, o.expiration, o.created_at + 86400), o.run_id, o.last_attempt_at,
                        o.delivered_at, o.delivered_apns_id, o.failure_class, o.failure_reason
                    FROM outbox AS o JOIN notify_device AS d ON d.token = o.token
                    LEFT JOIN alerted_event AS a ON a.token = o.token AND a.box = o.box AND a.night = o.night AND a.level = o.level
                    ORDER BY o.id;
                DELETE FROM sqlite_sequence WHERE name = 'outbox_entry';
                INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox_entry', seq FROM sqlite_sequence WHERE name = 'outbox';
                DROP TABLE alerted_event;
                DROP TABLE outbox;
                ALTER TABLE outbox_entry RENAME TO outbox;
                CREATE INDEX outbox_pending ON outbox(id) WHERE status = 'pending';
                CREATE INDEX outbox_on_box ON outbox(box, expires_at);
                """)
    }
}
