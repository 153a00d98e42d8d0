extension PostgresMigrations {
    /// Chance of frost (issue #47), as SQLite's `v17-ensembles`: one cached ensemble per box
    /// (`EnsembleCodec` body), and each subscription's `min_probability` (NULL: the configured
    /// default). `frostbox_subscribe_v3` is `frostbox_subscribe_v2` taking and returning it; the
    /// older functions stay for instances not yet upgraded.
    static let ensembles: [String] = [
        """
        CREATE TABLE ensemble_cache (
            box BIGINT PRIMARY KEY,
            fetched_at BIGINT NOT NULL,
            model TEXT NOT NULL,
            runs TEXT NOT NULL DEFAULT '',
            body BYTEA NOT NULL
        )
        """,
        "CREATE INDEX ensemble_cache_fetched_at ON ensemble_cache (fetched_at)",
        "ALTER TABLE subscription ADD COLUMN min_probability DOUBLE PRECISION CHECK (min_probability BETWEEN 0 AND 1)",
        "ALTER TABLE notify_run ADD COLUMN ensembles_cached INTEGER NOT NULL DEFAULT 0 CHECK (ensembles_cached >= 0)",
        "ALTER TABLE notify_run ADD COLUMN ensembles_fetched INTEGER NOT NULL DEFAULT 0 CHECK (ensembles_fetched >= 0)",
        "ALTER TABLE notify_run ADD COLUMN probability_fallback INTEGER NOT NULL DEFAULT 0 CHECK (probability_fallback >= 0)",
        """
        CREATE FUNCTION frostbox_subscribe_v3(
            p_token TEXT, p_latitude DOUBLE PRECISION, p_longitude DOUBLE PRECISION, p_box BIGINT, p_name TEXT, p_unit TEXT,
            p_now BIGINT, p_rule TEXT, p_frost_risk_c DOUBLE PRECISION, p_freeze_c DOUBLE PRECISION,
            p_hard_freeze_c DOUBLE PRECISION, p_all_clear BOOLEAN, p_notify_after INTEGER, p_notify_before INTEGER,
            p_min_probability DOUBLE PRECISION, p_limit INTEGER)
        RETURNS TABLE (
            r_created BOOLEAN, r_id BIGINT, r_latitude DOUBLE PRECISION, r_longitude DOUBLE PRECISION, r_name TEXT, r_unit TEXT,
            r_created_at BIGINT, r_rule TEXT, r_frost_risk_c DOUBLE PRECISION, r_freeze_c DOUBLE PRECISION,
            r_hard_freeze_c DOUBLE PRECISION, r_all_clear BOOLEAN, r_notify_after INTEGER, r_notify_before INTEGER,
            r_min_probability DOUBLE PRECISION)
        LANGUAGE plpgsql AS $$
        DECLARE
            held INTEGER;
        BEGIN
            INSERT INTO device (token, platform, created_at, registered_at)
                VALUES (p_token,
                        CASE WHEN length(p_token) BETWEEN 16 AND 200 AND length(p_token) % 2 = 0 AND p_token ~ '^[0-9a-f]+$'
                             THEN 'ios' ELSE 'android' END,
                        p_now, p_now)
                ON CONFLICT (token) DO NOTHING;
            PERFORM 1 FROM device AS d WHERE d.token = p_token FOR UPDATE;
            RETURN QUERY
                SELECT false, s.id, s.latitude, s.longitude, s.name, s.unit, s.created_at, s.rule, s.frost_risk_c, s.freeze_c,
                       s.hard_freeze_c, s.all_clear, s.notify_after, s.notify_before, s.min_probability
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
                                               freeze_c, hard_freeze_c, all_clear, notify_after, notify_before,
                                               min_probability)
                VALUES (p_token, p_latitude, p_longitude, p_box, p_name, p_unit, p_now, p_rule, p_frost_risk_c, p_freeze_c,
                        p_hard_freeze_c, p_all_clear, p_notify_after, p_notify_before, p_min_probability)
                RETURNING true, s.id, s.latitude, s.longitude, s.name, s.unit, s.created_at, s.rule, s.frost_risk_c, s.freeze_c,
                          s.hard_freeze_c, s.all_clear, s.notify_after, s.notify_before, s.min_probability;
        END
        $$
        """,
    ]
}
