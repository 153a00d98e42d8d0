import GRDB

extension FrostboxMigrations {
    /// Lets a notify run be `degraded` (some boxes or pushes failed). SQLite cannot change a
    /// CHECK constraint in place, so the runs table is rebuilt with the same columns and rows
    /// (foreign keys are off during migrations, so outbox rows keep their run ids).
    static func v6NotifyRunDegraded(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notify_run_v6 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'degraded', 'failed', 'interrupted')),
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
                INSERT INTO notify_run_v6 SELECT * FROM notify_run;
                DROP TABLE notify_run;
                ALTER TABLE notify_run_v6 RENAME TO notify_run;
                """)
    }
}
