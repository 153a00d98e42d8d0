import Foundation
import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

/// The `EnsembleCache` on PostgreSQL, shared by every instance: one row per box, the members
/// (or mean and spread) in the same compact form as the SQLite cache (`EnsembleCodec`).
public struct PostgresEnsembleCache: EnsembleCache {
    let database: PostgresDatabase
    /// Ensembles written per statement.
    static let storeChunk = 500

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func ensembles(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: EnsembleForecast] {
        let keys = Array(Set(boxes.map(\.key)))
        guard !keys.isEmpty else { return [:] }
        let rows = try await database.query(
            "SELECT box, fetched_at, model, runs, body FROM ensemble_cache WHERE box = ANY(\(keys)) AND fetched_at >= \(fetchedSince)")
        var result: [GeoBox: EnsembleForecast] = [:]
        for try await (key, fetchedAt, model, runs, body) in rows.decode((Int64, Int64, String, String, ByteBuffer).self) {
            // A row that no longer decodes is treated as absent: it is fetched again and replaced.
            guard let box = GeoBox(key: key), let decoded = EnsembleCodec.decode(Data(body.readableBytesView)),
                let runs = ModelRunsCodec.decode(runs)
            else { continue }
            result[box] = EnsembleForecast(box: box, hours: decoded.hours, values: decoded.values, model: model, fetchedAt: fetchedAt, runs: runs)
        }
        return result
    }

    public func store(_ ensembles: [EnsembleForecast]) async throws {
        // The last ensemble of a box wins, as with one upsert after another.
        var latest: [Int64: EnsembleForecast] = [:]
        for ensemble in ensembles { if let key = ensemble.boxKey { latest[key] = ensemble } }
        let unique = latest.sorted { $0.key < $1.key }.map(\.value)
        guard !unique.isEmpty else { return }
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: unique.count, by: Self.storeChunk) {
                let chunk = unique[start..<min(start + Self.storeChunk, unique.count)]
                try await connection.query(
                    """
                    INSERT INTO ensemble_cache (box, fetched_at, model, runs, body)
                    SELECT box, fetched_at, model, runs, decode(body, 'base64')
                    FROM unnest(\(chunk.map { $0.boxKey ?? 0 }), \(chunk.map(\.fetchedAt)), \(chunk.map(\.model)),
                                \(chunk.map { ModelRunsCodec.encode($0.runs) }), \(chunk.map { EnsembleCodec.encode($0).base64EncodedString() }))
                        AS u(box, fetched_at, model, runs, body)
                    ON CONFLICT (box) DO UPDATE SET fetched_at = excluded.fetched_at, model = excluded.model, runs = excluded.runs,
                        body = excluded.body
                    """, logger: logger)
            }
        }
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        try await database.query("DELETE FROM ensemble_cache WHERE fetched_at < \(fetchedBefore) RETURNING box", writes: true).collectCount()
    }
}
