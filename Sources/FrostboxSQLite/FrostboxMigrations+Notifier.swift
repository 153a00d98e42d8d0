import GRDB

extension FrostboxMigrations {
    /// The notifier's state: the outbox (one row per device and frost event, the exact push
    /// kept with it), the events alerted per device, forecast fetch state per box, and runs.
    static func v4Notifier(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notify_run (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'interrupted')),
                    boxes INTEGER NOT NULL DEFAULT 0 CHECK (boxes >= 0),
                    forecasts_cached INTEGER NOT NULL DEFAULT 0 CHECK (forecasts_cached >= 0),
                    forecasts_fetched INTEGER NOT NULL DEFAULT 0 CHECK (forecasts_fetched >= 0),
                    boxes_failed INTEGER NOT NULL DEFAULT 0 CHECK (boxes_failed >= 0),
                    boxes_left_out INTEGER NOT NULL DEFAULT 0 CHECK (boxes_left_out >= 0),
                    forecast_requests INTEGER NOT NULL DEFAULT 0 CHECK (forecast_requests >= 0),
                    weight_used REAL NOT NULL DEFAULT 0 CHECK (weight_used >= 0),
                    verdicts INTEGER NOT NULL DEFAULT 0 CHECK (verdicts >= 0),
                    alerts_planned INTEGER NOT NULL DEFAULT 0 CHECK (alerts_planned >= 0),
                    alerts_carried_over INTEGER NOT NULL DEFAULT 0 CHECK (alerts_carried_over >= 0),
                    alerts_delivered INTEGER NOT NULL DEFAULT 0 CHECK (alerts_delivered >= 0),
                    failed_temporary INTEGER NOT NULL DEFAULT 0 CHECK (failed_temporary >= 0),
                    failed_permanent INTEGER NOT NULL DEFAULT 0 CHECK (failed_permanent >= 0),
                    failed_invalid_token INTEGER NOT NULL DEFAULT 0 CHECK (failed_invalid_token >= 0),
                    failed_auth INTEGER NOT NULL DEFAULT 0 CHECK (failed_auth >= 0),
                    failed_expired INTEGER NOT NULL DEFAULT 0 CHECK (failed_expired >= 0),
                    tokens_pruned INTEGER NOT NULL DEFAULT 0 CHECK (tokens_pruned >= 0),
                    resend_ms INTEGER NOT NULL DEFAULT 0,
                    forecast_ms INTEGER NOT NULL DEFAULT 0,
                    planning_ms INTEGER NOT NULL DEFAULT 0,
                    store_ms INTEGER NOT NULL DEFAULT 0,
                    delivery_ms INTEGER NOT NULL DEFAULT 0,
                    duration_ms INTEGER NOT NULL DEFAULT 0,
                    error TEXT,
                    CHECK ((status = 'running') = (finished_at IS NULL) OR status = 'interrupted')
                );
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token TEXT NOT NULL REFERENCES device(token) ON DELETE CASCADE,
                    box INTEGER NOT NULL CHECK (box >= 0),
                    night TEXT NOT NULL CHECK (night GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
                    kind TEXT NOT NULL CHECK (kind IN ('frost', 'escalation', 'all-clear')),
                    apns_id TEXT NOT NULL UNIQUE CHECK (length(apns_id) = 36),
                    collapse_id TEXT CHECK (collapse_id IS NULL OR length(CAST(collapse_id AS BLOB)) <= 64),
                    topic TEXT,
                    environment TEXT CHECK (environment IN ('production', 'sandbox')),
                    push_type TEXT NOT NULL CHECK (push_type IN ('alert', 'background')),
                    priority INTEGER NOT NULL CHECK (priority IN (5, 10)),
                    expiration INTEGER,
                    payload TEXT NOT NULL CHECK (json_valid(payload)),
                    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    created_at INTEGER NOT NULL,
                    run_id INTEGER REFERENCES notify_run(id) ON DELETE SET NULL,
                    last_attempt_at INTEGER,
                    delivered_at INTEGER,
                    delivered_apns_id TEXT,
                    failure_class TEXT CHECK (failure_class IN ('temporary', 'permanent', 'invalid-token', 'auth', 'expired')),
                    failure_reason TEXT,
                    UNIQUE (token, box, night, level),
                    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
                    CHECK (status != 'failed' OR failure_class IS NOT NULL),
                    CHECK ((kind = 'all-clear') = (level = 0))
                );
                CREATE INDEX outbox_pending ON outbox(id) WHERE status = 'pending';
                CREATE INDEX outbox_on_expiration ON outbox(expiration);
                CREATE TABLE alerted_event (
                    token TEXT NOT NULL REFERENCES device(token) ON DELETE CASCADE,
                    box INTEGER NOT NULL CHECK (box >= 0),
                    night TEXT NOT NULL CHECK (night GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
                    kind TEXT NOT NULL CHECK (kind IN ('frost', 'escalation', 'all-clear')),
                    alerted_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (token, box, night, level),
                    CHECK ((kind = 'all-clear') = (level = 0))
                ) WITHOUT ROWID;
                CREATE INDEX alerted_event_on_box ON alerted_event(box, expires_at);
                CREATE INDEX alerted_event_on_expires_at ON alerted_event(expires_at);
                CREATE TABLE box_fetch (
                    box INTEGER PRIMARY KEY NOT NULL CHECK (box >= 0),
                    last_attempt_at INTEGER NOT NULL,
                    last_success_at INTEGER,
                    failing_since INTEGER,
                    failure TEXT,
                    CHECK ((failing_since IS NULL) = (failure IS NULL))
                );
                """)
    }
}
