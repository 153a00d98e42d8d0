import GRDB

extension FrostboxMigrations {
    /// Names every platform passes through say push, not APNs (the push engine, issue #45):
    /// the outbox's `apns_id` and `delivered_apns_id` are the message ids any gateway takes or
    /// gives (`message_id`, `delivered_message_id`), and `topic` on the outbox and the device is
    /// the app (a bundle id or an Android package name). Renamed in place: values, checks and
    /// triggers carry over.
    static func v20PushNames(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE outbox RENAME COLUMN apns_id TO message_id;
                ALTER TABLE outbox RENAME COLUMN delivered_apns_id TO delivered_message_id;
                ALTER TABLE outbox RENAME COLUMN topic TO app;
                ALTER TABLE device RENAME COLUMN topic TO app;
                """)
    }
}
