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
    let database: FrostboxDatabase
    /// Most name rows read for one query: bounds the work of one-letter queries in dense areas.
    public let maximumNameRows: Int

    public init(database: FrostboxDatabase, maximumNameRows: Int = 1500) {
        self.database = database
        self.maximumNameRows = maximumNameRows
    }

    public func search(_ query: PlaceQuery) async throws -> [PlaceMatch] {
        let cap = maximumNameRows
        return try await database.pool.read { db in
            try Self.search(db, query, maximumNameRows: cap)
        }
    }

    /// Whether no place is stored (cheap on any size).
    public func isEmpty() async throws -> Bool {
        try await database.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM place)") ?? true
        }
    }

    /// How many places are stored (scans the table: for summaries, not for requests).
    public func placeCount() async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0 }
    }

    // MARK: Search

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
        let place = Place(
            id: row[0], name: row[10], asciiName: row[11], alternateNames: row[12],
            coordinate: Coordinate(uncheckedLatitude: row[1], longitude: row[2]),
            featureClass: row[4], featureCode: row[5], countryCode: row[6], admin1Code: row[7],
            population: row[3], timezone: row[8], modified: row[9])
        let best = PlaceRanking.bestMatch(of: place, foldedQuery: query.folded)
        return PlaceMatch(
            place: place, matchedName: best?.name ?? place.name, isExact: candidate.isExact,
            distanceKilometres: candidate.distance, score: candidate.score,
            admin1Name: row["admin1_name"], countryName: row["country_name"])
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
    let summary: Statement

    init(db: Database, query: PlaceQuery, budget: Int) throws {
        self.db = db
        self.query = query
        self.lower = query.folded
        self.upper = NameFolding.upperBound(ofPrefix: query.folded)
        self.budget = budget
        self.summary = try db.cachedStatement(sql: "SELECT latitude, longitude, population FROM place WHERE id = ?")
    }

    var enough: Bool { candidates.count >= query.limit || budget <= 0 }

    mutating func near(_ point: Coordinate) throws {
        var searched = Set<GeoBox>()
        let neighbourhood = GeoBox.neighbourhood(of: point)
        searched.formUnion(neighbourhood)
        try scanBoxes(neighbourhood, point: point)
        for ring in 1...2 where !enough {
            let boxes = point.box.ring(ring).filter { searched.insert($0).inserted }
            try scanBoxes(boxes, point: point)
        }
        let cells = CellCover.cells(around: point, radiusKilometres: query.radiusKilometres)
        try exactInCells(cells.map(\.key), point: point)
        for cell in cells where !enough {
            try scan(
                sql: "SELECT place_id, folded FROM place_name_cell WHERE cell = ? AND folded >= ? AND folded < ? LIMIT ?",
                arguments: [cell.key, lower, upper, budget], point: point)
        }
    }

    mutating func worldwide() throws {
        let tiers = (0...19).map { "\($0)" }.joined(separator: ",")
        try scan(
            sql: "SELECT place_id, folded FROM place_name_tier WHERE tier IN (\(tiers)) AND folded = ? LIMIT ?",
            arguments: [lower, query.limit], point: nil)
        for tier in 0...19 where !enough {
            try scan(
                sql: "SELECT place_id, folded FROM place_name_tier WHERE tier = ? AND folded >= ? AND folded < ? LIMIT ?",
                arguments: [tier, lower, upper, budget], point: nil)
        }
    }

    mutating func scanBoxes(_ boxes: [GeoBox], point: Coordinate) throws {
        guard !boxes.isEmpty, budget > 0 else { return }
        let keys = boxes.map { "\($0.key)" }.joined(separator: ",")
        try scan(
            sql: "SELECT place_id, folded FROM place_name_box WHERE box IN (\(keys)) AND folded >= ? AND folded < ? LIMIT ?",
            arguments: [lower, upper, budget], point: point)
    }

    mutating func exactInCells(_ keys: [Int64], point: Coordinate) throws {
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + 500, keys.count)]
            start += chunk.count
            let list = chunk.map { "\($0)" }.joined(separator: ",")
            try scan(
                sql: "SELECT place_id, folded FROM place_name_cell WHERE cell IN (\(list)) AND folded = ? LIMIT ?",
                arguments: [lower, max(query.limit, 1)], point: point, countsAgainstBudget: false)
        }
    }

    /// Runs a name query and adds the places it names.
    mutating func scan(sql: String, arguments: StatementArguments, point: Coordinate?, countsAgainstBudget: Bool = true) throws {
        let statement = try db.cachedStatement(sql: sql)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        let queryLength = lower.utf8.count
        while let row = try rows.next() {
            if countsAgainstBudget { budget -= 1 }
            let id: Int64 = row[0]
            let exact = try row.withUnsafeData(atIndex: 1) { data in (data?.count ?? -1) == queryLength }
            if var existing = candidates[id] {
                if exact && !existing.isExact {
                    existing.isExact = true
                    candidates[id] = existing
                }
                continue
            }
            guard let facts = try Row.fetchOne(summary, arguments: [id]) else { continue }
            let population: Int64 = facts[2]
            var distance: Double?
            if let point {
                let km = point.distanceKilometres(to: Coordinate(uncheckedLatitude: facts[0], longitude: facts[1]))
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
