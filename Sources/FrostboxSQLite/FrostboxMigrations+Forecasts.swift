import GRDB

extension FrostboxMigrations {
    /// Forecast cache per box, the quota ledger of forecast requests, and the source's pause.
    static func v3Forecasts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE forecast_cache (
                    box INTEGER PRIMARY KEY NOT NULL CHECK (box >= 0),
                    fetched_at INTEGER NOT NULL,
                    timezone TEXT NOT NULL CHECK (length(timezone) BETWEEN 1 AND 100),
                    utc_offset_seconds INTEGER NOT NULL CHECK (utc_offset_seconds BETWEEN -86400 AND 86400),
                    grid_latitude REAL NOT NULL CHECK (grid_latitude BETWEEN -90 AND 90),
                    grid_longitude REAL NOT NULL CHECK (grid_longitude BETWEEN -180 AND 180),
                    elevation REAL,
                    hour_count INTEGER NOT NULL CHECK (hour_count >= 0),
                    hours BLOB NOT NULL
                );
                CREATE INDEX forecast_cache_on_fetched_at ON forecast_cache(fetched_at);
                CREATE TABLE quota_charge (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    weight REAL NOT NULL CHECK (weight >= 0),
                    locations INTEGER NOT NULL CHECK (locations >= 0),
                    settled INTEGER NOT NULL DEFAULT 0 CHECK (settled IN (0, 1))
                );
                CREATE INDEX quota_charge_on_at ON quota_charge(at);
                CREATE TABLE quota_hold (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    until INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    set_at INTEGER NOT NULL
                );
                """)
    }
}
