import Logging
import PostgresNIO

/// The PostgreSQL schema, as an append-only list of named migrations (a released one is
/// never edited: change the schema by appending a new one). `migrate` applies the missing ones in one transaction holding an advisory lock,
/// so instances starting together wait for each other and the schema is migrated once.
///
/// The tables mirror the SQLite schema after its v8 (places stay in each instance's local
/// SQLite file): `device` with a stable integer id, `subscription`, the fan-out `outbox`
/// (one row per device and event, the queued push and the alerted mark at once, its distinct
/// pushes stored once in `outbox_push`), `box_fetch`, `notify_run`, `forecast_cache`,
/// `quota_charge` and `quota_hold`.
enum PostgresMigrations {
    /// The advisory lock key held while migrating ("Frostbox" in ASCII).
    static let lockKey: Int64 = 0x4672_6f73_7462_6f78

    static let all: [(name: String, sql: [String])] = [
        ("p1-initial", initial + sharedRuns + notifyOrder + subscribeFunction),
        ("p2-device-platform", devicePlatform),
        ("p3-model-runs", modelRuns),
        ("p4-run-platforms", runPlatforms),
        ("p5-quiet-hours", quietHours),
        ("p6-device-verification", deviceVerification),
        ("p7-notify-windows", notifyWindows),
        ("p8-ensembles", ensembles),
        ("p9-night-records", nightRecords),
        ("p10-night-checks", nightChecks),
        ("p11-push-budget", pushBudget),
        ("p12-push-names", pushNames),
        ("p13-web-push", webPush),
        ("p14-outbox-by-box", outboxByBox),
    ]

    /// A run counts its delivered and failed alerts by platform (`PlatformDeliveriesCodec`;
    /// empty for runs stored before).
    static let runPlatforms: [String] = [
        "ALTER TABLE notify_run ADD COLUMN by_platform TEXT NOT NULL DEFAULT ''"
    ]

    /// Run-aware forecast caching: each cached forecast keeps the model runs it came from
    /// (`ModelRunsCodec`; empty for entries fetched before), a run counts the boxes it kept
    /// because no model had a newer run, and `model_run` shares each model's latest run, as
    /// last asked of the source, among instances (one metadata request per model and run).
    static let modelRuns: [String] = [
        "ALTER TABLE forecast_cache ADD COLUMN runs TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE notify_run ADD COLUMN forecasts_fresh_by_run INTEGER NOT NULL DEFAULT 0 CHECK (forecasts_fresh_by_run >= 0)",
        """
        CREATE TABLE model_run (
            model TEXT PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 64),
            checked_at BIGINT NOT NULL,
            initialised_at BIGINT,
            available_at BIGINT,
            failure TEXT,
            CHECK ((available_at IS NULL) = (failure IS NOT NULL))
        )
        """,
    ]

    /// The subscribed boxes in the order a run asks for them: boxes whose last fetch failed or
    /// was left out first (failing longest first), then boxes never fetched, then the rest by
    /// oldest successful fetch. `boxesToNotify` reads it; a shared run lists its boxes from it.
    static let notifyOrder: [String] = [
        """
        CREATE VIEW box_notify_order AS
        SELECT row_number() OVER (
                   ORDER BY CASE WHEN f.failing_since IS NOT NULL THEN 0 WHEN f.box IS NULL THEN 1 ELSE 2 END,
                            COALESCE(f.failing_since, f.last_success_at, 0), s.box) AS position,
               s.box
        FROM (SELECT DISTINCT box FROM subscription) AS s LEFT JOIN box_fetch AS f ON f.box = s.box
        """
    ]

    /// `subscribe` in one round trip: a device write used seven (begin, device, row lock,
    /// match, count, insert, commit), and the round trips, not the engine, bounded the rate.
    /// The function registers the device if needed, locks its row (concurrent subscribes of
    /// one device are counted one after another), returns whether it created the row and the
    /// matching subscription if there is one, no row when the device holds `p_limit` already,
    /// or the new one. Its columns after `r_created` are `PostgresSubscriptionStore.columns`.
    static let subscribeFunction: [String] = [
        """
        CREATE FUNCTION frostbox_subscribe(
            p_token TEXT, p_latitude DOUBLE PRECISION, p_longitude DOUBLE PRECISION, p_box BIGINT, p_name TEXT, p_unit TEXT,
            p_now BIGINT, p_rule TEXT, p_frost_risk_c DOUBLE PRECISION, p_freeze_c DOUBLE PRECISION,
            p_hard_freeze_c DOUBLE PRECISION, p_all_clear BOOLEAN, p_limit INTEGER)
        RETURNS TABLE (
            r_created BOOLEAN, r_id BIGINT, r_latitude DOUBLE PRECISION, r_longitude DOUBLE PRECISION, r_name TEXT, r_unit TEXT,
            r_created_at BIGINT, r_rule TEXT, r_frost_risk_c DOUBLE PRECISION, r_freeze_c DOUBLE PRECISION,
            r_hard_freeze_c DOUBLE PRECISION, r_all_clear BOOLEAN)
        LANGUAGE plpgsql AS $$
        DECLARE
            held INTEGER;
        BEGIN
            INSERT INTO device (token, created_at, registered_at) VALUES (p_token, p_now, p_now) ON CONFLICT (token) DO NOTHING;
            PERFORM 1 FROM device AS d WHERE d.token = p_token FOR UPDATE;
            RETURN QUERY
                SELECT false, s.id, s.latitude, s.longitude, s.name, s.unit, s.created_at, s.rule, s.frost_risk_c, s.freeze_c,
                       s.hard_freeze_c, s.all_clear
                FROM subscription AS s
                WHERE s.token = p_token AND s.name = p_name
                  AND abs(s.latitude - p_latitude) <= 1e-6 AND abs(s.longitude - p_longitude) <= 1e-6
                ORDER BY s.id LIMIT 1;
            IF FOUND THEN
                RETURN;
            END IF;
            SELECT count(*) INTO held FROM subscription AS s WHERE s.token = p_token;
            IF held >= p_limit THEN
                RETURN;
            END IF;
            RETURN QUERY
                INSERT INTO subscription AS s (token, latitude, longitude, box, name, unit, created_at, rule, frost_risk_c,
                                               freeze_c, hard_freeze_c, all_clear)
                VALUES (p_token, p_latitude, p_longitude, p_box, p_name, p_unit, p_now, p_rule, p_frost_risk_c, p_freeze_c,
                        p_hard_freeze_c, p_all_clear)
                RETURNING true, s.id, s.latitude, s.longitude, s.name, s.unit, s.created_at, s.rule, s.frost_risk_c, s.freeze_c,
                          s.hard_freeze_c, s.all_clear;
        END
        $$
        """
    ]

    /// Runs shared by several instances: who works on a run (`run_worker`, with a heartbeat
    /// and each worker's part) and its boxes claimed under leases (`run_box`). An outbox
    /// entry's claim (`outbox.claimed_by` in run `claim_run`) is held by its claimer's
    /// heartbeat on that run, not by a lease per row: renewing one on every pending row was an
    /// update of a run's whole backlog every few seconds, and deadlocked with delivery.
    static let sharedRuns: [String] = [
        """
        CREATE TABLE run_worker (
            run_id BIGINT NOT NULL REFERENCES notify_run(id) ON DELETE CASCADE,
            worker TEXT NOT NULL CHECK (length(worker) BETWEEN 1 AND 200),
            joined_at BIGINT NOT NULL,
            heartbeat_at BIGINT NOT NULL,
            finished_at BIGINT,
            summary TEXT,
            boxes INTEGER NOT NULL DEFAULT 0,
            alerts_planned INTEGER NOT NULL DEFAULT 0,
            alerts_delivered INTEGER NOT NULL DEFAULT 0,
            alerts_carried_over INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (run_id, worker)
        )
        """,
        """
        CREATE TABLE run_box (
            run_id BIGINT NOT NULL REFERENCES notify_run(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            box BIGINT NOT NULL CHECK (box >= 0),
            worker TEXT,
            lease_until BIGINT,
            done_at BIGINT,
            PRIMARY KEY (run_id, position)
        )
        """,
        "CREATE INDEX run_box_open ON run_box (run_id, position) WHERE done_at IS NULL",
        "CREATE INDEX outbox_pending_claims ON outbox (claim_run, claimed_by) WHERE status = 'pending'",
    ]

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migration (
                    name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<String> = []
            for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            for migration in all where !applied.contains(migration.name) {
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migration (name) VALUES (\(migration.name))", logger: logger)
                logger.info("applied PostgreSQL migration", metadata: ["migration": "\(migration.name)"])
            }
        }
    }

    static func applied(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        var applied: Set<String> = []
        let exists = try await connection.query("SELECT to_regclass('schema_migration') IS NOT NULL", logger: logger)
        for try await table in exists.decode(Bool.self) where !table { return [] }
        for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
            applied.insert(name)
        }
        return applied
    }

    static let initial: [String] = [
        """
        CREATE TABLE device (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            token TEXT NOT NULL UNIQUE
                CHECK (length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0 AND token ~ '^[0-9a-f]+$'),
            topic TEXT,
            environment TEXT CHECK (environment IN ('production', 'sandbox')),
            locale TEXT,
            created_at BIGINT NOT NULL,
            registered_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE subscription (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            token TEXT NOT NULL REFERENCES device(token) ON DELETE CASCADE,
            latitude DOUBLE PRECISION NOT NULL CHECK (latitude BETWEEN -90 AND 90),
            longitude DOUBLE PRECISION NOT NULL CHECK (longitude BETWEEN -180 AND 180),
            box BIGINT NOT NULL CHECK (box >= 0),
            name TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
            unit TEXT NOT NULL CHECK (unit IN ('C', 'F')),
            created_at BIGINT NOT NULL,
            rule TEXT,
            frost_risk_c DOUBLE PRECISION,
            freeze_c DOUBLE PRECISION,
            hard_freeze_c DOUBLE PRECISION,
            all_clear BOOLEAN NOT NULL DEFAULT false
        )
        """,
        "CREATE INDEX subscription_on_token ON subscription (token, id)",
        "CREATE INDEX subscription_on_box ON subscription (box, token)",
        """
        CREATE TABLE forecast_cache (
            box BIGINT PRIMARY KEY CHECK (box >= 0),
            fetched_at BIGINT NOT NULL,
            timezone TEXT NOT NULL CHECK (length(timezone) BETWEEN 1 AND 100),
            utc_offset_seconds INTEGER NOT NULL CHECK (utc_offset_seconds BETWEEN -86400 AND 86400),
            grid_latitude DOUBLE PRECISION NOT NULL CHECK (grid_latitude BETWEEN -90 AND 90),
            grid_longitude DOUBLE PRECISION NOT NULL CHECK (grid_longitude BETWEEN -180 AND 180),
            elevation DOUBLE PRECISION,
            hour_count INTEGER NOT NULL CHECK (hour_count >= 0),
            hours BYTEA NOT NULL
        )
        """,
        "CREATE INDEX forecast_cache_on_fetched_at ON forecast_cache (fetched_at)",
        """
        CREATE TABLE quota_charge (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at BIGINT NOT NULL,
            weight DOUBLE PRECISION NOT NULL CHECK (weight >= 0),
            locations INTEGER NOT NULL CHECK (locations >= 0),
            settled BOOLEAN NOT NULL DEFAULT false
        )
        """,
        "CREATE INDEX quota_charge_on_at ON quota_charge (at)",
        """
        CREATE TABLE quota_hold (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            until BIGINT NOT NULL,
            reason TEXT NOT NULL,
            set_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE notify_run (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            started_at BIGINT NOT NULL,
            finished_at BIGINT,
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'degraded', 'failed', 'interrupted')),
            boxes INTEGER NOT NULL DEFAULT 0 CHECK (boxes >= 0),
            forecasts_cached INTEGER NOT NULL DEFAULT 0 CHECK (forecasts_cached >= 0),
            forecasts_fetched INTEGER NOT NULL DEFAULT 0 CHECK (forecasts_fetched >= 0),
            boxes_failed INTEGER NOT NULL DEFAULT 0 CHECK (boxes_failed >= 0),
            boxes_left_out INTEGER NOT NULL DEFAULT 0 CHECK (boxes_left_out >= 0),
            forecast_requests INTEGER NOT NULL DEFAULT 0 CHECK (forecast_requests >= 0),
            weight_used DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (weight_used >= 0),
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
            resend_ms BIGINT NOT NULL DEFAULT 0,
            forecast_ms BIGINT NOT NULL DEFAULT 0,
            planning_ms BIGINT NOT NULL DEFAULT 0,
            store_ms BIGINT NOT NULL DEFAULT 0,
            delivery_ms BIGINT NOT NULL DEFAULT 0,
            duration_ms BIGINT NOT NULL DEFAULT 0,
            error TEXT,
            CHECK ((status = 'running') = (finished_at IS NULL) OR status = 'interrupted')
        )
        """,
        """
        CREATE TABLE outbox_push (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            collapse_id TEXT CHECK (collapse_id IS NULL OR octet_length(collapse_id) <= 64),
            push_type TEXT NOT NULL CHECK (push_type IN ('alert', 'background')),
            priority SMALLINT NOT NULL CHECK (priority IN (5, 10)),
            expiration BIGINT,
            payload TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE outbox (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            device_id BIGINT NOT NULL REFERENCES device(id) ON DELETE CASCADE,
            box BIGINT NOT NULL CHECK (box >= 0),
            night INTEGER NOT NULL CHECK (night BETWEEN 10000101 AND 99991231),
            level SMALLINT NOT NULL CHECK (level BETWEEN 0 AND 3),
            kind TEXT NOT NULL CHECK (kind IN ('frost', 'escalation', 'all-clear')),
            push_id BIGINT NOT NULL REFERENCES outbox_push(id),
            apns_id TEXT CHECK (apns_id IS NULL OR length(apns_id) = 36),
            topic TEXT,
            environment TEXT CHECK (environment IN ('production', 'sandbox')),
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            run_id BIGINT REFERENCES notify_run(id) ON DELETE SET NULL,
            last_attempt_at BIGINT,
            delivered_at BIGINT,
            delivered_apns_id TEXT,
            failure_class TEXT CHECK (failure_class IN ('temporary', 'permanent', 'invalid-token', 'auth', 'expired')),
            failure_reason TEXT,
            claimed_by TEXT,
            claim_run BIGINT,
            UNIQUE (device_id, box, night, level),
            CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
            CHECK (status != 'failed' OR failure_class IS NOT NULL),
            CHECK ((kind = 'all-clear') = (level = 0))
        )
        """,
        "CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending'",
        "CREATE INDEX outbox_on_box ON outbox (box, expires_at)",
        "CREATE INDEX outbox_on_push ON outbox (push_id)",
        "CREATE INDEX outbox_on_run ON outbox (run_id)",
        """
        CREATE TABLE box_fetch (
            box BIGINT PRIMARY KEY CHECK (box >= 0),
            last_attempt_at BIGINT NOT NULL,
            last_success_at BIGINT,
            failing_since BIGINT,
            failure TEXT,
            CHECK ((failing_since IS NULL) = (failure IS NULL))
        )
        """,
    ]
}
