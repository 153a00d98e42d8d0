import GRDB

extension FrostboxMigrations {
    /// Devices proven real (issue #33): `verified_at` is when a gateway accepted the device's
    /// verification push (NULL: pending — every device stored before included, so the first
    /// run with verification on proves each once); a partial index keeps the pending ones a
    /// verification round pages through cheap to find among many verified ones. The runs
    /// table counts the round's verified and rejected devices and the boxes left out because
    /// no device in them is verified yet.
    static func v14DeviceVerification(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE device ADD COLUMN verified_at INTEGER;
                CREATE INDEX device_pending ON device(token) WHERE verified_at IS NULL;
                ALTER TABLE notify_run ADD COLUMN devices_verified INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE notify_run ADD COLUMN devices_rejected INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE notify_run ADD COLUMN boxes_unverified INTEGER NOT NULL DEFAULT 0;
                """)
    }
}
