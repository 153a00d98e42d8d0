extension PostgresMigrations {
    /// Devices have a platform (`ios`: APNs, `android`: FCM); every device before is `ios`.
    /// The token's CHECK becomes the platform's: hex for iOS as before, an FCM registration
    /// token (1–4,096 of `A–Z a–z 0–9 _ : -`) for Android. `frostbox_subscribe`, which
    /// registers a device it does not know, gives it the platform its token's form says (as
    /// `DeviceToken.formPlatform` does).
    static let devicePlatform: [String] = [
        "ALTER TABLE device ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios'",
        "ALTER TABLE device DROP CONSTRAINT IF EXISTS device_token_check",
        """
        ALTER TABLE device ADD CONSTRAINT device_platform_token_check CHECK (
            (platform = 'ios' AND length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0 AND token ~ '^[0-9a-f]+$')
            OR (platform = 'android' AND length(token) BETWEEN 1 AND 4096 AND token ~ '^[A-Za-z0-9_:-]+$'))
        """,
        """
        CREATE OR REPLACE FUNCTION frostbox_subscribe(
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
            INSERT INTO device (token, platform, created_at, registered_at)
                VALUES (p_token,
                        CASE WHEN length(p_token) BETWEEN 16 AND 200 AND length(p_token) % 2 = 0 AND p_token ~ '^[0-9a-f]+$'
                             THEN 'ios' ELSE 'android' END,
                        p_now, p_now)
                ON CONFLICT (token) DO NOTHING;
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
        """,
    ]
}
