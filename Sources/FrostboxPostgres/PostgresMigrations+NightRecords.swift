extension PostgresMigrations {
    /// Were the alerts right (issue #48), as SQLite's `v18-night-records`: each subscribed
    /// box's nights as last judged before they began and the alerts that went out for them,
    /// kept until checked and scored.
    static let nightRecords: [String] = [
        """
        CREATE TABLE night_record (
            box BIGINT NOT NULL,
            night INTEGER NOT NULL,
            window_start BIGINT NOT NULL,
            window_end BIGINT NOT NULL CHECK (window_end > window_start),
            utc_offset_seconds INTEGER NOT NULL,
            level SMALLINT NOT NULL CHECK (level BETWEEN 0 AND 3),
            minimum_c DOUBLE PRECISION,
            p_frost_risk DOUBLE PRECISION CHECK (p_frost_risk BETWEEN 0 AND 1),
            p_freeze DOUBLE PRECISION CHECK (p_freeze BETWEEN 0 AND 1),
            p_hard_freeze DOUBLE PRECISION CHECK (p_hard_freeze BETWEEN 0 AND 1),
            runs TEXT NOT NULL DEFAULT '',
            judged_at BIGINT NOT NULL,
            alerted_level SMALLINT NOT NULL DEFAULT 0 CHECK (alerted_level BETWEEN 0 AND 3),
            first_alert_at BIGINT,
            lead TEXT CHECK (lead IN ('same-night', 'next-night', 'later')),
            PRIMARY KEY (box, night)
        )
        """,
        "CREATE INDEX night_record_window_end ON night_record (window_end)",
    ]

    /// The check of kept nights against what happened, as SQLite's `v19-night-checks`.
    static let nightChecks: [String] = [
        "ALTER TABLE night_record ADD COLUMN check_state SMALLINT CHECK (check_state BETWEEN 1 AND 4)",
        "ALTER TABLE night_record ADD COLUMN region TEXT",
        "ALTER TABLE night_record ADD COLUMN stratum TEXT",
        "ALTER TABLE night_record ADD COLUMN weight DOUBLE PRECISION CHECK (weight >= 0)",
        "ALTER TABLE night_record ADD COLUMN observed_min_c DOUBLE PRECISION",
        "ALTER TABLE night_record ADD COLUMN checked_at BIGINT",
        "CREATE INDEX night_record_chosen ON night_record (box) WHERE check_state = 1",
        "CREATE INDEX night_record_pending ON night_record (window_end) WHERE check_state IS NULL",
        """
        CREATE TABLE night_check_lease (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            owner TEXT NOT NULL,
            until BIGINT NOT NULL
        )
        """,
        "ALTER TABLE quota_charge ADD COLUMN purpose TEXT",
    ]
}
