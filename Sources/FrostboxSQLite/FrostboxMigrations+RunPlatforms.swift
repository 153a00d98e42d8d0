import GRDB

extension FrostboxMigrations {
    /// A run counts its delivered and failed alerts by platform (`PlatformDeliveriesCodec`;
    /// empty for runs stored before).
    static func v11RunPlatforms(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE notify_run ADD COLUMN by_platform TEXT NOT NULL DEFAULT ''")
    }
}
