import FrostboxCore
import GRDB

/// The status map's `BoxMapSource` on SQLite: read-only queries over subscriptions, box fetch
/// state and the forecast cache. Tables of parts not installed read as empty.
public struct GRDBBoxMapSource: BoxMapSource {
    let database: FrostboxDatabase
    /// Boxes looked up per statement.
    static let lookupChunk = 500

    public init(database: FrostboxDatabase) {
        self.database = database
    }

    public func subscribedBoxes() async throws -> [SubscribedBox] {
        try await database.pool.read { db in
            let fetchState = try db.tableExists("box_fetch")
            let cache = try db.tableExists("forecast_cache")
            // One pass over the (box, token) index for the counts, then point lookups per box.
            let sql = """
                SELECT s.box, s.subscribers,
                       \(cache ? "(SELECT fetched_at FROM forecast_cache WHERE box = s.box)" : "NULL"),
                       \(fetchState ? "f.failing_since, f.failure" : "NULL, NULL")
                FROM (SELECT box, count(DISTINCT token) AS subscribers FROM subscription GROUP BY box) AS s
                \(fetchState ? "LEFT JOIN box_fetch AS f ON f.box = s.box" : "")
                ORDER BY s.box
                """
            let rows = try Row.fetchCursor(db, sql: sql)
            var boxes: [SubscribedBox] = []
            while let row = try rows.next() {
                // A key outside the box grid would be a damaged row: it is left off the map.
                guard let box = GeoBox(key: row[0]) else { continue }
                boxes.append(SubscribedBox(box: box, subscribers: row[1], forecastFetchedAt: row[2], failingSince: row[3], failure: row[4]))
            }
            return boxes
        }
    }

    public func placeNames(in boxes: [GeoBox], limit: Int) async throws -> [GeoBox: [String]] {
        let keys = Array(Set(boxes.map(\.key))).sorted()
        guard !keys.isEmpty, limit > 0 else { return [:] }
        return try await database.pool.read { db in
            var names: [GeoBox: [String]] = [:]
            for start in stride(from: 0, to: keys.count, by: Self.lookupChunk) {
                let chunk = Array(keys[start..<min(start + Self.lookupChunk, keys.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT DISTINCT box, name FROM subscription WHERE box IN (\(marks)) ORDER BY box, name",
                    arguments: StatementArguments(chunk))
                while let row = try rows.next() {
                    guard let box = GeoBox(key: row[0]) else { continue }
                    if names[box, default: []].count < limit { names[box, default: []].append(row[1]) }
                }
            }
            return names
        }
    }
}
