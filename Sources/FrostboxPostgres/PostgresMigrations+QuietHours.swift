extension PostgresMigrations {
    /// Quiet hours, as SQLite's `v12-quiet-hours`: a device's daily span on the place's wall
    /// clock (`quiet_start`, `quiet_end`: minutes after midnight, both set or both NULL,
    /// different) and whether a hard freeze breaks through; an outbox entry held through
    /// quiet hours carries `not_before` and `frost_starts_at`; the runs table counts held,
    /// released and held-expired alerts.
    static let quietHours: [String] = [
        "ALTER TABLE device ADD COLUMN quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439)",
        "ALTER TABLE device ADD COLUMN quiet_end INTEGER CHECK (quiet_end BETWEEN 0 AND 1439)",
        """
        ALTER TABLE device ADD CONSTRAINT device_quiet_hours_check
            CHECK ((quiet_start IS NULL) = (quiet_end IS NULL) AND (quiet_start IS NULL OR quiet_start <> quiet_end))
        """,
        "ALTER TABLE device ADD COLUMN hard_freeze_breaks_quiet BOOLEAN NOT NULL DEFAULT false",
        "ALTER TABLE outbox ADD COLUMN not_before BIGINT",
        "ALTER TABLE outbox ADD COLUMN frost_starts_at BIGINT",
        "CREATE INDEX outbox_held ON outbox (device_id, box, night) WHERE status = 'pending' AND not_before IS NOT NULL",
        "ALTER TABLE notify_run ADD COLUMN alerts_held INTEGER NOT NULL DEFAULT 0 CHECK (alerts_held >= 0)",
        "ALTER TABLE notify_run ADD COLUMN alerts_released INTEGER NOT NULL DEFAULT 0 CHECK (alerts_released >= 0)",
        "ALTER TABLE notify_run ADD COLUMN alerts_held_expired INTEGER NOT NULL DEFAULT 0 CHECK (alerts_held_expired >= 0)",
    ]
}
