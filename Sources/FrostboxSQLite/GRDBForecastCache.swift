import FrostboxCore
import GRDB

/// The `ForecastCache` on SQLite: one row per box, the hourly series as a compact blob.
public struct GRDBForecastCache: ForecastCache {
    let database: FrostboxDatabase
    /// Boxes looked up per statement (SQLite's bound-parameter limit is far above this).
    static let lookupChunk = 500

    public init(database: FrostboxDatabase) {
        self.database = database
    }

    public func forecasts(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: BoxForecast] {
        let keys = Array(Set(boxes.map(\.key)))
        guard !keys.isEmpty else { return [:] }
        let records = try await database.pool.read { db in
            var found: [ForecastCacheRecord] = []
            for start in stride(from: 0, to: keys.count, by: Self.lookupChunk) {
                let chunk = keys[start..<min(start + Self.lookupChunk, keys.count)]
                found +=
                    try ForecastCacheRecord
                    .filter(chunk.contains(ForecastCacheRecord.Columns.box))
                    .filter(ForecastCacheRecord.Columns.fetchedAt >= fetchedSince)
                    .fetchAll(db)
            }
            return found
        }
        var result: [GeoBox: BoxForecast] = [:]
        result.reserveCapacity(records.count)
        for record in records {
            // A row that no longer decodes is treated as absent: it is fetched again and replaced.
            if let forecast = record.forecast, let box = forecast.box { result[box] = forecast }
        }
        return result
    }

    public func store(_ forecasts: [BoxForecast]) async throws {
        guard !forecasts.isEmpty else { return }
        let records = forecasts.map(ForecastCacheRecord.init)
        try await database.write { db in
            for record in records { try record.upsert(db) }
        }
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        try await database.write { db in
            try ForecastCacheRecord.filter(ForecastCacheRecord.Columns.fetchedAt < fetchedBefore).deleteAll(db)
        }
    }

    @discardableResult
    public func purgeUnsubscribed(limit: Int) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: """
                    DELETE FROM forecast_cache WHERE box IN (
                        SELECT box FROM forecast_cache
                        WHERE NOT EXISTS (SELECT 1 FROM subscription WHERE subscription.box = forecast_cache.box)
                        LIMIT ?)
                    """,
                arguments: [max(0, limit)])
            return db.changesCount
        }
    }

    /// How many boxes are cached (for status output).
    public func count() async throws -> Int {
        try await database.pool.read { db in try ForecastCacheRecord.fetchCount(db) }
    }
}
