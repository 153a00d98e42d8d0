import GRDB

extension FrostboxMigrations {
    /// Quiet hours: a device's daily span on the place's wall clock (`quiet_start`,
    /// `quiet_end`: minutes after midnight, both set or both NULL, different) and whether a
    /// hard freeze breaks through it; an outbox entry held through quiet hours carries
    /// `not_before` (not sent earlier) and `frost_starts_at` (released after it, it is
    /// dropped); the runs table counts held, released and held-expired alerts. Added columns
    /// only: no table is copied.
    static func v12QuietHours(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE device ADD COLUMN quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439);
                ALTER TABLE device ADD COLUMN quiet_end INTEGER
                    CHECK ((quiet_end IS NULL) = (quiet_start IS NULL) AND (quiet_end IS NULL OR (quiet_end BETWEEN 0 AND 1439 AND quiet_end != quiet_start)));
                ALTER TABLE device ADD COLUMN hard_freeze_breaks_quiet INTEGER NOT NULL DEFAULT 0 CHECK (hard_freeze_breaks_quiet = 0 OR hard_freeze_breaks_quiet = 1);
                ALTER TABLE outbox ADD COLUMN not_before INTEGER;
                ALTER TABLE outbox ADD COLUMN frost_starts_at INTEGER;
                CREATE INDEX outbox_held ON outbox(device_id, box, night) WHERE status = 'pending' AND not_before IS NOT NULL;
                ALTER TABLE notify_run ADD COLUMN alerts_held INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE notify_run ADD COLUMN alerts_released INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE notify_run ADD COLUMN alerts_held_expired INTEGER NOT NULL DEFAULT 0;
                """)
    }
}
