import Foundation
import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

/// The `ForecastCache` on PostgreSQL, shared by every instance: one row per box, the hourly
/// series in the same compact binary form as the SQLite cache (`ForecastHoursCodec`).
public struct PostgresForecastCache: ForecastCache {
    let database: PostgresDatabase
    /// Forecasts written per statement.
    static let storeChunk = 1_000

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func forecasts(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: BoxForecast] {
        let keys = Array(Set(boxes.map(\.key)))
        guard !keys.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT box, fetched_at, timezone, utc_offset_seconds, grid_latitude, grid_longitude, elevation, hour_count, hours, runs
            FROM forecast_cache WHERE box = ANY(\(keys)) AND fetched_at >= \(fetchedSince)
            """)
        var result: [GeoBox: BoxForecast] = [:]
        for try await (key, fetchedAt, timezone, offset, gridLatitude, gridLongitude, elevation, hourCount, hours, runs) in rows.decode(
            (Int64, Int64, String, Int32, Double, Double, Double?, Int32, ByteBuffer, String).self)
        {
            // A row that no longer decodes is treated as absent: it is fetched again and replaced.
            guard let box = GeoBox(key: key), let series = ForecastHoursCodec.decode(Data(hours.readableBytesView)), series.count == hourCount,
                let runs = ModelRunsCodec.decode(runs)
            else { continue }
            result[box] = BoxForecast(
                box: box, timezone: timezone, utcOffsetSeconds: Int(offset), gridLatitude: gridLatitude,
                gridLongitude: gridLongitude, elevation: elevation, fetchedAt: fetchedAt, hours: series, runs: runs)
        }
        return result
    }

    public func store(_ forecasts: [BoxForecast]) async throws {
        guard !forecasts.isEmpty else { return }
        // The last forecast of a box wins, as with one upsert after another.
        var latest: [Int64: BoxForecast] = [:]
        for forecast in forecasts { latest[forecast.boxKey] = forecast }
        let unique = Array(latest.values)
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: unique.count, by: Self.storeChunk) {
                let chunk = unique[start..<min(start + Self.storeChunk, unique.count)]
                // Elevation may be missing: NaN in the array stands for NULL.
                try await connection.query(
                    """
                    INSERT INTO forecast_cache (box, fetched_at, timezone, utc_offset_seconds, grid_latitude, grid_longitude,
                                                elevation, hour_count, hours, runs)
                    SELECT box, fetched_at, timezone, utc_offset, grid_latitude, grid_longitude, NULLIF(elevation, 'NaN'),
                           hour_count, decode(hours, 'base64'), runs
                    FROM unnest(\(chunk.map(\.boxKey)), \(chunk.map(\.fetchedAt)), \(chunk.map(\.timezone)),
                                \(chunk.map { Int32(clamping: $0.utcOffsetSeconds) }), \(chunk.map(\.gridLatitude)),
                                \(chunk.map(\.gridLongitude)), \(chunk.map { $0.elevation ?? .nan }),
                                \(chunk.map { Int32(clamping: $0.hours.count) }),
                                \(chunk.map { ForecastHoursCodec.encode($0.hours).base64EncodedString() }),
                                \(chunk.map { ModelRunsCodec.encode($0.runs) }))
                        AS u(box, fetched_at, timezone, utc_offset, grid_latitude, grid_longitude, elevation, hour_count, hours, runs)
                    ON CONFLICT (box) DO UPDATE SET fetched_at = excluded.fetched_at, timezone = excluded.timezone,
                        utc_offset_seconds = excluded.utc_offset_seconds, grid_latitude = excluded.grid_latitude,
                        grid_longitude = excluded.grid_longitude, elevation = excluded.elevation,
                        hour_count = excluded.hour_count, hours = excluded.hours, runs = excluded.runs
                    """, logger: logger)
            }
        }
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        try await database.query(
            "DELETE FROM forecast_cache WHERE fetched_at < \(fetchedBefore) RETURNING box", writes: true
        ).collectCount()
    }

    @discardableResult
    public func purgeUnsubscribed(limit: Int) async throws -> Int {
        try await database.query(
            """
            DELETE FROM forecast_cache WHERE box IN (
                SELECT f.box FROM forecast_cache f
                WHERE NOT EXISTS (SELECT 1 FROM subscription s WHERE s.box = f.box)
                LIMIT \(Int64(max(0, limit))))
            RETURNING box
            """, writes: true
        ).collectCount()
    }

    /// How many boxes are cached (for status output).
    public func count() async throws -> Int {
        try await database.query("SELECT count(*) FROM forecast_cache").single(Int.self) ?? 0
    }
}
