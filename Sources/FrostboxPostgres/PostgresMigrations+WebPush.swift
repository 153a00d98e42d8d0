extension PostgresMigrations {
    /// As SQLite's `v21-web-push`: a `web` device is named by the id the server gave its push
    /// subscription and carries it (the endpoint, unique, and the keys); the token CHECK gains
    /// the web form, which an Android token never has; a device has a subscription exactly
    /// when it is a browser. `frostbox_subscribe_v4` is `frostbox_subscribe_v3` registering
    /// an unknown token on the way only when it is not a browser's id (`no_data_found`
    /// then); v3 stays for instances not yet upgraded.
    static let webPush: [String] = [
        """
        ALTER TABLE device ADD COLUMN web_endpoint TEXT UNIQUE
            CHECK (web_endpoint IS NULL OR (length(web_endpoint) BETWEEN 9 AND 2048 AND web_endpoint LIKE 'https://%'))
        """,
        "ALTER TABLE device ADD COLUMN web_p256dh TEXT CHECK (web_p256dh IS NULL OR length(web_p256dh) = 87)",
        "ALTER TABLE device ADD COLUMN web_auth TEXT CHECK (web_auth IS NULL OR length(web_auth) = 22)",
        "ALTER TABLE device DROP CONSTRAINT device_platform_token_check",
        """
        ALTER TABLE device ADD CONSTRAINT device_platform_token_check CHECK (
            (platform = 'ios' AND length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0 AND token ~ '^[0-9a-f]+$')
            OR (platform = 'android' AND length(token) BETWEEN 1 AND 4096 AND token ~ '^[A-Za-z0-9_:-]+$'
                AND token !~ '^web:[A-Za-z0-9_-]{22}$')
            OR (platform = 'web' AND token ~ '^web:[A-Za-z0-9_-]{22}$'))
        """,
        """
        ALTER TABLE device ADD CONSTRAINT device_web_subscription_check CHECK (
            (platform = 'web') = (web_endpoint IS NOT NULL)
            AND (web_endpoint IS NULL) = (web_p256dh IS NULL) AND (web_endpoint IS NULL) = (web_auth IS NULL))
        """,
        """
        CREATE FUNCTION frostbox_subscribe_v4(
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
            IF p_token !~ '^web:[A-Za-z0-9_-]{22}$' THEN
                INSERT INTO device (token, platform, created_at, registered_at)
                    VALUES (p_token,
                            CASE WHEN length(p_token) BETWEEN 16 AND 200 AND length(p_token) % 2 = 0 AND p_token ~ '^[0-9a-f]+$'
                                 THEN 'ios' ELSE 'android' END,
                            p_now, p_now)
                    ON CONFLICT (token) DO NOTHING;
            END IF;
            PERFORM 1 FROM device AS d WHERE d.token = p_token FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'no browser is registered under this device id' USING ERRCODE = 'no_data_found';
            END IF;
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
