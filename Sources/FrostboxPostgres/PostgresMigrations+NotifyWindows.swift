extension PostgresMigrations {
    /// Per-subscription delivery windows, as SQLite's `v15-notify-windows`: `notify_after` and
    /// `notify_before`, minutes after midnight on the place's wall clock, each optional (NULL:
    /// the day's edge; both NULL: no window), different, and never `notify_before` 0 alone.
    ///
    /// `frostbox_subscribe_v2` is `frostbox_subscribe` (p2's) taking and returning the window
    /// too; its columns after `r_created` are `PostgresSubscriptionStore.columns`. The older
    /// function stays for instances not yet upgraded (their subscriptions get no window).
    static let notifyWindows: [String] = [
        "ALTER TABLE subscription ADD COLUMN notify_after INTEGER CHECK (notify_after BETWEEN 0 AND 1439)",
        "ALTER TABLE subscription ADD COLUMN notify_before INTEGER CHECK (notify_before BETWEEN 0 AND 1439)",
        """
        ALTER TABLE subscription ADD CONSTRAINT subscription_notify_window_check
            CHECK (notify_before IS NULL OR (notify_before IS DISTINCT FROM notify_after AND (notify_after IS NOT NULL OR notify_before <> 0)))
        """,
        """
        CREATE FUNCTION frostbox_subscribe_v2(
            p_token TEXT, p_latitude DOUBLE PRECISION, p_longitude DOUBLE PRECISION, p_box BIGINT, p_name TEXT, p_unit TEXT,
            p_now BIGINT, p_rule TEXT, p_frost_risk_c DOUBLE PRECISION, p_freeze_c DOUBLE PRECISION,
            p_hard_freeze_c DOUBLE PRECISION, p_all_clear BOOLEAN, p_notify_after INTEGER, p_notify_before INTEGER, p_limit INTEGER)
        RETURNS TABLE (
            r_created BOOLEAN, r_id BIGINT, r_latitude DOUBLE PRECISION, r_longitude DOUBLE PRECISION, r_name TEXT, r_unit TEXT,
            r_created_at BIGINT, r_rule TEXT, r_frost_risk_c DOUBLE PRECISION, r_freeze_c DOUBLE PRECISION,
            r_hard_freeze_c DOUBLE PRECISION, r_all_clear BOOLEAN, r_notify_after INTEGER, r_notify_before INTEGER)
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
                       s.hard_freeze_c, s.all_clear, s.notify_after, s.notify_before
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
                                               freeze_c, hard_freeze_c, all_clear, notify_after, notify_before)
                VALUES (p_token, p_latitude, p_longitude, p_box, p_name, p_unit, p_now, p_rule, p_frost_risk_c, p_freeze_c,
                        p_hard_freeze_c, p_all_clear, p_notify_after, p_notify_before)
                RETURNING true, s.id, s.latitude, s.longitude, s.name, s.unit, s.created_at, s.rule, s.frost_risk_c, s.freeze_c,
                          s.hard_freeze_c, s.all_clear, s.notify_after, s.notify_before;
        END
        $$
        """,
    ]
}
