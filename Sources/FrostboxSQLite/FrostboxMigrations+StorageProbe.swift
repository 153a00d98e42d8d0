import GRDB

extension FrostboxMigrations {
    /// A table for `/ready`'s probe write while the file refuses writes: the probe inserts
    /// and deletes one page of data in it, so the table stays empty.
    static func v13StorageProbe(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE storage_probe (id INTEGER PRIMARY KEY, filler BLOB NOT NULL)")
    }
}
