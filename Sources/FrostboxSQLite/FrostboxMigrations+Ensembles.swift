import GRDB

extension FrostboxMigrations {
    /// Chance of frost (issue #47): one cached ensemble per box (`EnsembleCodec` body, the model
    /// it is named by and the runs it came from), and each subscription's `min_probability`
    /// (NULL: the configured default; 0: the deterministic verdict alone); a run counts the
    /// ensembles it took from the cache and fetched, and the boxes that fell back to the
    /// deterministic verdict for want of one.
    static func v17Ensembles(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE ensemble_cache (
                    box INTEGER PRIMARY KEY NOT NULL,
                    fetched_at INTEGER NOT NULL,
                    model TEXT NOT NULL,
                    runs TEXT NOT NULL DEFAULT '',
                    body BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX ensemble_cache_fetched_at ON ensemble_cache(fetched_at);
                ALTER TABLE subscription ADD COLUMN min_probability REAL CHECK (min_probability BETWEEN 0 AND 1);
                ALTER TABLE notify_run ADD COLUMN ensembles_cached INTEGER NOT NULL DEFAULT 0 CHECK (ensembles_cached >= 0);
                ALTER TABLE notify_run ADD COLUMN ensembles_fetched INTEGER NOT NULL DEFAULT 0 CHECK (ensembles_fetched >= 0);
                ALTER TABLE notify_run ADD COLUMN probability_fallback INTEGER NOT NULL DEFAULT 0 CHECK (probability_fallback >= 0);
                """)
    }
}
