import FrostboxCore
import Foundation
import GRDB

/// The `PlaceIndex` on SQLite (see `PlaceLevels` for the tables).
///
/// Near a point: the point's 0.05° neighbourhood boxes (the 0.8 rule), then rings 1 and 2
/// around its box; then, while fewer than `limit` places were found, 1° cells nearest
/// first until the radius. Exact matches of settlement-like places anywhere within the
/// radius are always looked up (one seek per cell), so typing a whole name finds it.
/// Worldwide: population tiers, largest first, until `limit` places were found.
/// Candidates are then ranked by `PlaceRanking`.
public struct GRDBPlaceIndex: PlaceIndex {
    let database: PlacesDatabase
    /// Most name rows read for one query: bounds the work of one-letter queries in dense areas.
    public let maximumNameRows: Int

    public init(database: PlacesDatabase, maximumNameRows: Int = 250) {
        self.database = database
        self.maximumNameRows = maximumNameRows
    }

    public func search(_ query: PlaceQuery) async throws -> [PlaceMatch] {
        let cap = maximumNameRows
        return try await database.pool.read { db in
            try Self.prepareReader(db)
            return try Self.search(db, query, maximumNameRows: cap)
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

    static func search(_ db: Database, _ query: PlaceQuery, maximumNameRows: Int) throws -> [PlaceMatch] {
        var search = try CandidateSearch(db: db, query: query, budget: maximumNameRows)
        if let point = query.near {
            try search.near(point)
        } else {
            try search.worldwide()
        }
        let ranked = search.candidates.values.sorted(by: Candidate.ranksBefore).prefix(query.limit)
        return try ranked.compactMap { candidate in try match(db, candidate, query) }
    }

    static func match(_ db: Database, _ candidate: Candidate, _ query: PlaceQuery) throws -> PlaceMatch? {
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
        let best = PlaceRanking.bestMatch(of: place, foldedQuery: query.folded)
        return PlaceMatch(
            place: place, matchedName: best?.name ?? place.name, isExact: candidate.isExact,
            distanceKilometres: candidate.distance, score: candidate.score,
            admin1Name: row[13], countryName: row[14], localizedName: place.preferredName(languages: query.languages))
    }
}

/// A place found by the index scans, with what ranking needs.
struct Candidate {
    let id: Int64
    var isExact: Bool
    let population: Int64
    let distance: Double?
    let score: Double

    static func ranksBefore(_ a: Candidate, _ b: Candidate) -> Bool {
        if a.isExact != b.isExact { return a.isExact }
        if a.score != b.score { return a.score > b.score }
        if a.population != b.population { return a.population > b.population }
        if (a.distance ?? 0) != (b.distance ?? 0) { return (a.distance ?? 0) < (b.distance ?? 0) }
        return a.id < b.id
    }
}

/// One query's walk over the name levels.
struct CandidateSearch {
    let db: Database
    let query: PlaceQuery
    let lower: String
    let upper: String
    /// Name rows still allowed to be read.
    var budget: Int
    var candidates: [Int64: Candidate] = [:]
    let summary: RawStatement

    init(db: Database, query: PlaceQuery, budget: Int) throws {
        self.db = db
        self.query = query
        self.lower = query.folded
        self.upper = NameFolding.upperBound(ofPrefix: query.folded)
        self.budget = budget
        self.summary = try RawStatement(db, sql: "SELECT latitude, longitude, population FROM place WHERE id = ?")
    }

    var enough: Bool { candidates.count >= query.limit || budget <= 0 }

    mutating func near(_ point: Coordinate) throws {
        var searched = Set<GeoBox>()
        let neighbourhood = GeoBox.neighbourhood(of: point)
        searched.formUnion(neighbourhood)
        try scanKeys(neighbourhood.map(\.key), level: .box, exact: false, point: point)
        for ring in 1...2 where !enough {
            let boxes = point.box.ring(ring).filter { searched.insert($0).inserted }
            try scanKeys(boxes.map(\.key), level: .box, exact: false, point: point)
        }
        let cells = CellCover.cells(around: point, radiusKilometres: query.radiusKilometres).map(\.key)
        // Nearest cells first, a band per statement (one seek per cell either way; fewer
        // statements cost less than finer stopping).
        var scanned = 0
        while scanned < cells.count && !enough {
            let band = Array(cells[scanned..<min(scanned + Self.keysPerStatement, cells.count)])
            scanned += band.count
            try scanKeys(band, level: .cell, exact: false, point: point)
        }
        // Cells the prefix scan did not reach still answer exact matches: typing a whole
        // name finds it anywhere within the radius.
        if scanned < cells.count {
            try scanKeys(Array(cells[scanned...]), level: .cell, exact: true, point: point)
        }
    }

    mutating func worldwide() throws {
        try scanKeys((0...19).map { Int64($0) }, level: .tier, exact: true, point: nil)
        for tier in 0...19 where !enough {
            try scanKeys([Int64(tier)], level: .tier, exact: false, point: nil)
        }
    }

    enum Level: String {
        case box, cell, tier
    }

    /// Keys per statement. Statements have a fixed number of placeholders (short lists are
    /// padded with a repeated key, which `IN` ignores) so that the statement cache holds a
    /// handful of statements instead of one per distinct key list.
    static let keysPerStatement = 8

    /// Scans `keys` of a level for the prefix (or, `exact`, the whole query).
    mutating func scanKeys(_ keys: [Int64], level: Level, exact: Bool, point: Coordinate?) throws {
        var start = 0
        let column = level.rawValue
        let placeholders = Array(repeating: "?", count: Self.keysPerStatement).joined(separator: ",")
        let sql = exact
            ? "SELECT place_id, folded FROM place_name_\(column) WHERE \(column) IN (\(placeholders)) AND folded = ? LIMIT ?"
            : "SELECT place_id, folded FROM place_name_\(column) WHERE \(column) IN (\(placeholders)) AND folded >= ? AND folded < ? LIMIT ?"
        while start < keys.count && (exact || budget > 0) {
            let chunk = keys[start..<min(start + Self.keysPerStatement, keys.count)]
            start += chunk.count
            let statement = try RawStatement(db, sql: sql)
            for index in 0..<Self.keysPerStatement {
                statement.bind(Int32(index + 1), index < chunk.count ? chunk[chunk.startIndex + index] : chunk[chunk.startIndex])
            }
            let next = Int32(Self.keysPerStatement + 1)
            statement.bind(next, lower)
            if exact {
                statement.bind(next + 1, Int64(query.limit))
            } else {
                statement.bind(next + 1, upper)
                statement.bind(next + 2, Int64(budget))
            }
            try scan(statement, point: point, countsAgainstBudget: !exact)
        }
    }

    /// Reads the `(place_id, folded)` rows of a name query and adds the places they name.
    mutating func scan(_ rows: RawStatement, point: Coordinate?, countsAgainstBudget: Bool) throws {
        let queryLength = lower.utf8.count
        while try rows.next() {
            if countsAgainstBudget { budget -= 1 }
            let id = rows.int64(0)
            // Every row starts with the query; the same length means equal.
            let exact = rows.byteCount(1) == queryLength
            if var existing = candidates[id] {
                if exact && !existing.isExact {
                    existing.isExact = true
                    candidates[id] = existing
                }
                continue
            }
            summary.bind(1, id)
            guard try summary.next() else { continue }
            let latitude = summary.double(0)
            let longitude = summary.double(1)
            let population = summary.int64(2)
            summary.reset()
            var distance: Double?
            if let point {
                let km = point.distanceKilometres(to: Coordinate(uncheckedLatitude: latitude, longitude: longitude))
                guard km <= query.radiusKilometres else { continue }
                distance = km
            }
            candidates[id] = Candidate(
                id: id, isExact: exact, population: population, distance: distance,
                score: PlaceRanking.score(population: population, distanceKilometres: distance))
        }
    }
}

/// The 1° cells that may hold points within a radius, nearest first.
enum CellCover {
    struct Cell {
        let key: Int64
        let distance: Double
    }

    static let kilometresPerDegree = 111.195

    static func cells(around point: Coordinate, radiusKilometres: Double) -> [Cell] {
        let dLat = radiusKilometres / kilometresPerDegree
        let south = max(point.latitude - dLat, -90)
        let north = min(point.latitude + dLat, 90)
        let rows = PlaceLevels.cellRow(latitude: south)...PlaceLevels.cellRow(latitude: north)
        let widest = max(abs(south), abs(north))
        let cosine = widest >= 89.999 ? 0 : cos(widest * .pi / 180)
        let dLon = cosine <= 0 ? 360 : dLat / cosine
        var columns: [Int] = []
        if dLon >= 180 {
            columns = Array(-180...179)
        } else {
            let west = Int((point.longitude - dLon).rounded(.down))
            let east = Int((point.longitude + dLon).rounded(.down))
            var seen = Set<Int>()
            for column in west...east where seen.insert(PlaceLevels.wrapColumn(column)).inserted {
                columns.append(PlaceLevels.wrapColumn(column))
            }
        }
        var cells: [Cell] = []
        cells.reserveCapacity(rows.count * columns.count)
        for row in rows {
            for column in columns {
                // The bounding box of the circle is the cover; the distance only orders it.
                let distance = orderingDistance(from: point, row: row, column: column)
                cells.append(Cell(key: PlaceLevels.cellKey(row: row, column: column), distance: distance))
            }
        }
        return cells.sorted { $0.distance < $1.distance || ($0.distance == $1.distance && $0.key < $1.key) }
    }

    /// Distance from the point to the cell's point nearest in latitude and longitude
    /// separately: good enough to visit cells nearest first.
    static func orderingDistance(from point: Coordinate, row: Int, column: Int) -> Double {
        let latitude = min(max(point.latitude, Double(row)), Double(row) + 1)
        let west = Double(column)
        let longitude: Double
        if GeoBox.longitudeDistance(point.longitude, west + 0.5) <= 0.5 {
            longitude = point.longitude
        } else {
            let toWest = GeoBox.longitudeDistance(point.longitude, west)
            let toEast = GeoBox.longitudeDistance(point.longitude, west + 1)
            longitude = toWest < toEast ? west : west + 1
        }
        let nearest = Coordinate(uncheckedLatitude: latitude, longitude: longitude > 180 ? longitude - 360 : longitude)
        return point.distanceKilometres(to: nearest)
    }
}
