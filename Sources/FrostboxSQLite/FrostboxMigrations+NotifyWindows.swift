import GRDB

extension FrostboxMigrations {
    /// Per-subscription delivery windows (`DeliveryWindow`): `notify_after` and
    /// `notify_before`, minutes after midnight on the place's wall clock, each optional (NULL:
    /// the day's edge; both NULL: no window), different, and never `notify_before` 0 alone (an
    /// empty window). Added columns only: no table is copied, existing subscriptions have no window.
    static func v15NotifyWindows(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE subscription ADD COLUMN notify_after INTEGER CHECK (notify_after BETWEEN 0 AND 1439);
                ALTER TABLE subscription ADD COLUMN notify_before INTEGER
                    CHECK (notify_before IS NULL
                           OR (notify_before BETWEEN 0 AND 1439 AND notify_before IS NOT notify_after AND (notify_after IS NOT NULL OR notify_before != 0)));
                """)
    }
}
