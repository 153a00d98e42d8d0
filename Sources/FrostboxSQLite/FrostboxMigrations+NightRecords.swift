import GRDB

extension FrostboxMigrations {
    /// Were the alerts right (issue #48): each subscribed box's nights as last judged before
    /// they began (level, forecast low, chance per level, model runs) and the alerts that
    /// went out for them (highest level, first sent and its lead), kept until checked and
    /// scored, purged after `verification.retention`.
    static func v18NightRecords(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE night_record (
                    box INTEGER NOT NULL,
                    night INTEGER NOT NULL,
                    window_start INTEGER NOT NULL,
                    window_end INTEGER NOT NULL CHECK (window_end > window_start),
                    utc_offset_seconds INTEGER NOT NULL,
                    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
                    minimum_c REAL,
                    p_frost_risk REAL CHECK (p_frost_risk BETWEEN 0 AND 1),
                    p_freeze REAL CHECK (p_freeze BETWEEN 0 AND 1),
                    p_hard_freeze REAL CHECK (p_hard_freeze BETWEEN 0 AND 1),
                    runs TEXT NOT NULL DEFAULT '',
                    judged_at INTEGER NOT NULL,
                    alerted_level INTEGER NOT NULL DEFAULT 0 CHECK (alerted_level BETWEEN 0 AND 3),
                    first_alert_at INTEGER,
                    lead TEXT CHECK (lead IN ('same-night', 'next-night', 'later')),
                    PRIMARY KEY (box, night)
                ) WITHOUT ROWID;
                CREATE INDEX night_record_window_end ON night_record(window_end);
                """)
    }

    /// The check of kept nights against what happened (issue #48): which nights were chosen
    /// (every alerted one, a sample of the others per region and night with the weight each
    /// stands for), what was observed and when; the lease that keeps the check to one process
    /// at a time; and the purpose of a quota charge, so the check's share of the budget is its own.
    static func v19NightChecks(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE night_record ADD COLUMN check_state INTEGER CHECK (check_state BETWEEN 1 AND 4);
                ALTER TABLE night_record ADD COLUMN region TEXT;
                ALTER TABLE night_record ADD COLUMN stratum TEXT;
                ALTER TABLE night_record ADD COLUMN weight REAL CHECK (weight >= 0);
                ALTER TABLE night_record ADD COLUMN observed_min_c REAL;
                ALTER TABLE night_record ADD COLUMN checked_at INTEGER;
                CREATE INDEX night_record_chosen ON night_record(box) WHERE check_state = 1;
                CREATE INDEX night_record_pending ON night_record(window_end) WHERE check_state IS NULL;
                CREATE TABLE night_check_lease (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    owner TEXT NOT NULL,
                    until INTEGER NOT NULL
                );
                ALTER TABLE quota_charge ADD COLUMN purpose TEXT;
                """)
    }
}
