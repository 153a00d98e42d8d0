extension PostgresMigrations {
    /// As SQLite's `v20-push-names`: the outbox's message ids and the app (outbox and device)
    /// under platform-neutral names.
    static let pushNames: [String] = [
        "ALTER TABLE outbox RENAME COLUMN apns_id TO message_id",
        "ALTER TABLE outbox RENAME COLUMN delivered_apns_id TO delivered_message_id",
        "ALTER TABLE outbox RENAME COLUMN topic TO app",
        "ALTER TABLE device RENAME COLUMN topic TO app",
    ]
}
