import Foundation
import FrostboxCore
import GRDB

/// The `PlaceIndex` on SQLite (see `PlaceLevels` for the tables), each reading of a query
/// (`PlaceSearchPlan`) searched as follows.
///
/// Near a point: the point's 0.05° neighbourhood boxes (the 0.8 rule), then rings 1 and 2
/// around its box; then, while fewer than `limit` places were found, 1° cells nearest
/// first until the radius. Exact matches of settlement-like places anywhere within the
/// radius are always looked up (one seek per cell), so typing a whole name finds it. When
/// fewer than `limit` places lie within the radius, the list is completed worldwide.
/// Worldwide: population tiers, largest first, until `limit` places were found.
/// Candidates are then ranked by `PlaceRanking`.
public struct GRDBPlaceIndex: PlaceIndex {
    /// The places file a search starts on (a server may switch generations between searches;
    /// a search keeps the file it started on to its end).
    let database: @Sendable () -> PlacesDatabase
    /// Most name rows read for one reading of a query (and again for its worldwide
    /// completion): bounds the work of one-letter queries in dense areas.
    public let maximumNameRows: Int

    public init(database: PlacesDatabase, maximumNameRows: Int = 250) {
        self.database = { database }
        self.maximumNameRows = maximumNameRows
    }

    /// Searches whichever places file `places` holds when each search starts.
    public init(places: PlacesInUse, maximumNameRows: Int = 250) {
        self.database = { places.database }
        self.maximumNameRows = maximumNameRows
    }

    public func search(_ query: PlaceQuery) async throws -> [PlaceMatch] {
        let cap = maximumNameRows
        let database = self.database()
        let regions = database.regions
        return try await database.pool.read { db in
            try Self.prepareReader(db)
            return try PlaceSearchPlan.results(
                for: query, catalog: { try regions.catalog(db) },
                search: { reading in try Self.search(db, query, reading, maximumNameRows: cap) })
        }
    }

    // MARK: Search

    /// A search touches a few dozen pages spread over gigabytes of index: memory-map the
    /// file (no read syscall per page) and keep more pages per reader than SQLite's 2 MB
    /// default, so the upper levels of every index stay cached. Both are per connection and
    /// cheap to repeat.
    static func prepareReader(_ db: Database) throws {
        try db.cachedStatement(sql: "PRAGMA mmap_size = 68719476736").execute()
        try db.cachedStatement(sql: "PRAGMA cache_size = -32768").execute()
    }

    static func search(
        _ db: Database, _ query: PlaceQuery, _ reading: PlaceSearchPlan.Reading, maximumNameRows: Int
    ) throws -> [PlaceMatch] {
        var search = try CandidateSearch(db: db, query: query, reading: reading, budget: maximumNameRows)
        if let point = query.near {
            try search.near(point)
            if search.candidates.count < query.limit {
                search.budget = maximumNameRows
                try search.worldwide(from: point)
            }
        } else {
            try search.worldwide(from: nil)
        }
        let ranked = try search.rankSettlingNameKinds()
        return try ranked.compactMap { candidate in try match(db, candidate, reading.folded, query) }
    }

    static func match(_ db: Database, _ candidate: Candidate, _ folded: String, _ query: PlaceQuery) throws -> PlaceMatch? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT p.id, p.latitude, p.longitude, p.population, p.feature_class, p.feature_code, p.country_code,
                       p.admin1_code, p.timezone, p.modified, p.name, p.ascii_name, p.alternate_names,
                       a.name AS admin1_name, c.name AS country_name
                FROM place p
                LEFT JOIN admin1 a ON a.code = p.country_code || '.' || p.admin1_code
                LEFT JOIN country c ON c.code = p.country_code
                WHERE p.id = ?
                """)
        guard let row = try Row.fetchOne(statement, arguments: [candidate.id]) else { return nil }
        let place = PlaceRows.place(row, alternates: try PlaceRows.alternates(db, placeID: candidate.id))
        let best = PlaceRanking.bestMatch(of: place, foldedQuery: folded)
        return PlaceMatch(
            place: place, matchedName: best?.name ?? place.name, isExact: candidate.isExact, nameKind: candidate.nameKind,
            distanceKilometres: candidate.distance, isNearby: candidate.isNearby, score: candidate.score,
            admin1Name: row[13], countryName: row[14], localizedName: place.preferredName(languages: query.languages),
            continuesAsTyped: candidate.continuesAsTyped, ownNameIsPrefix: candidate.ownName.isPrefix)
    }

    /// A place with its alternate names, for the name kind of a candidate that matched no
    /// name of its own.
    static func place(_ db: Database, id: Int64) throws -> Place? {
        let statement = try db.cachedStatement(sql: "SELECT \(PlaceRows.placeColumns) FROM place WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return PlaceRows.place(row, alternates: try PlaceRows.alternates(db, placeID: id))
    }
}
