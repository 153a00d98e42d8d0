import Foundation
import FrostboxCore
import FrostboxStorageFormats
import GRDB

/// The `EnsembleCache` on SQLite: one row per box, the members (or mean and spread) as a
/// compact blob (`EnsembleCodec`).
public struct GRDBEnsembleCache: EnsembleCache {
    let database: FrostboxDatabase
    /// Boxes looked up per statement.
    static let lookupChunk = 500

    public init(database: FrostboxDatabase) {
        self.database = database
    }

    public func ensembles(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: EnsembleForecast] {
        let keys = Array(Set(boxes.map(\.key)))
        guard !keys.isEmpty else { return [:] }
        return try await database.pool.read { db in
            var found: [GeoBox: EnsembleForecast] = [:]
            for start in stride(from: 0, to: keys.count, by: Self.lookupChunk) {
                let chunk = Array(keys[start..<min(start + Self.lookupChunk, keys.count)])
                let marks = chunk.map { _ in "?" }.joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT box, fetched_at, model, runs, body FROM ensemble_cache WHERE box IN (\(marks)) AND fetched_at >= ?",
                    arguments: StatementArguments(chunk + [fetchedSince]))
                while let row = try rows.next() {
                    // A row that no longer decodes is treated as absent: it is fetched again and replaced.
                    guard let box = GeoBox(key: row[0]), let decoded = EnsembleCodec.decode(row[4]), let runs = ModelRunsCodec.decode(row[3])
                    else { continue }
                    found[box] = EnsembleForecast(
                        box: box, hours: decoded.hours, values: decoded.values, model: row[2], fetchedAt: row[1], runs: runs)
                }
            }
            return found
        }
    }

    public func store(_ ensembles: [EnsembleForecast]) async throws {
        let rows = ensembles.compactMap { ensemble -> (Int64, Int64, String, String, Data)? in
            guard let key = ensemble.boxKey else { return nil }
            return (key, ensemble.fetchedAt, ensemble.model, ModelRunsCodec.encode(ensemble.runs), EnsembleCodec.encode(ensemble))
        }
        guard !rows.isEmpty else { return }
        try await database.write { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO ensemble_cache (box, fetched_at, model, runs, body) VALUES (?, ?, ?, ?, ?)")
            for row in rows { try statement.execute(arguments: [row.0, row.1, row.2, row.3, row.4]) }
        }
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM ensemble_cache WHERE fetched_at < ?", arguments: [fetchedBefore])
            return db.changesCount
        }
    }

    /// How many boxes have a cached ensemble (for status output).
    public func count() async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ensemble_cache") ?? 0 }
    }
}
