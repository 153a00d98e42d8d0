import GRDB

extension FrostboxMigrations {
    /// Run-aware forecast caching: each cached forecast keeps the model runs it came from
    /// (empty for entries fetched before, which are then compared by fetch time), and a run
    /// counts the boxes it kept because no model had a newer run.
    static func v10ModelRuns(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE forecast_cache ADD COLUMN runs TEXT NOT NULL DEFAULT '';
                ALTER TABLE notify_run ADD COLUMN forecasts_fresh_by_run INTEGER NOT NULL DEFAULT 0
                    CHECK (forecasts_fresh_by_run >= 0);
                """)
    }
}
