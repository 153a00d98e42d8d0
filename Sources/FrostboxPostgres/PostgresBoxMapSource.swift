import FrostboxCore
import PostgresNIO

/// The status map's `BoxMapSource` on PostgreSQL: read-only queries over subscriptions, box
/// fetch state and the shared forecast cache.
public struct PostgresBoxMapSource: BoxMapSource {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func subscribedBoxes() async throws -> [SubscribedBox] {
        let rows = try await database.query(
            """
            SELECT s.box, s.subscribers, c.fetched_at, f.failing_since, f.failure
            FROM (SELECT box, count(DISTINCT token) AS subscribers FROM subscription GROUP BY box) AS s
            LEFT JOIN forecast_cache AS c ON c.box = s.box
            LEFT JOIN box_fetch AS f ON f.box = s.box
            ORDER BY s.box
            """)
        var boxes: [SubscribedBox] = []
        for try await (key, subscribers, fetchedAt, failingSince, failure) in rows.decode((Int64, Int64, Int64?, Int64?, String?).self) {
            // A key outside the box grid would be a damaged row: it is left off the map.
            guard let box = GeoBox(key: key) else { continue }
            boxes.append(
                SubscribedBox(box: box, subscribers: Int(subscribers), forecastFetchedAt: fetchedAt, failingSince: failingSince, failure: failure))
        }
        return boxes
    }

    public func placeNames(in boxes: [GeoBox], limit: Int) async throws -> [GeoBox: [String]] {
        let keys = Array(Set(boxes.map(\.key))).sorted()
        guard !keys.isEmpty, limit > 0 else { return [:] }
        let rows = try await database.query(
            """
            SELECT box, name FROM (
                SELECT box, name, row_number() OVER (PARTITION BY box ORDER BY name COLLATE "C") AS n
                FROM (SELECT DISTINCT box, name FROM subscription WHERE box = ANY(\(keys))) AS d) AS ranked
            WHERE n <= \(Int64(limit)) ORDER BY box, name COLLATE "C"
            """)
        var names: [GeoBox: [String]] = [:]
        for try await (key, name) in rows.decode((Int64, String).self) {
            guard let box = GeoBox(key: key) else { continue }
            names[box, default: []].append(name)
        }
        return names
    }
}
