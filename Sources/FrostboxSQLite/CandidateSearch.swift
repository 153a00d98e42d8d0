import FrostboxCore
import GRDB

/// A place found by the index scans, with what ranking needs.
struct Candidate {
    let id: Int64
    var isExact: Bool
    /// Settled by `CandidateSearch.rankSettlingNameKinds` once every row was read.
    var nameKind: PlaceNameKind = .own
    let isNearby: Bool
    let population: Int64
    let distance: Double?
    let score: Double
    /// How the place's name or ASCII name compares with the query (read with its summary row):
    /// whether one starts with it, whether one equals it.
    let ownName: (isPrefix: Bool, isEqual: Bool)
    /// See `PlaceRanking.continuesAsTyped`.
    let continuesAsTyped: Bool

    /// Whether the place's name or ASCII name matches in the candidate's match class: its
    /// name kind is then own, with nothing more to read.
    var matchesOwnName: Bool { isExact ? ownName.isEqual : ownName.isPrefix }

    var rankingKey: PlaceRanking.Key {
        PlaceRanking.Key(
            isNearby: isNearby, isExact: isExact, nameKind: nameKind, score: score, population: population,
            distanceKilometres: distance, id: id, continuesAsTyped: continuesAsTyped, ownNameIsPrefix: ownName.isPrefix)
    }

    /// The best `limit` candidates in rank order.
    static func top(_ candidates: some Sequence<Candidate>, limit: Int) -> [Candidate] {
        PlaceRanking.top(candidates, limit: limit, key: \.rankingKey)
    }
}

/// One reading's walk over the name levels.
struct CandidateSearch {
    let db: Database
    let query: PlaceQuery
    let reading: PlaceSearchPlan.Reading
    let lower: String
    let upper: String
    /// The query folded with its hyphens, when it ends in one and this reading is the whole
    /// query.
    let hyphenated: String?
    /// Name rows still allowed to be read.
    var budget: Int
    /// The budget a walk starts with.
    let rowBudget: Int
    var candidates: [Int64: Candidate] = [:]
    let summary: RawStatement

    /// Most candidates whose name kind is read (see `rankSettlingNameKinds`).
    static let maximumKindLookups = 64

    init(db: Database, query: PlaceQuery, reading: PlaceSearchPlan.Reading, budget: Int) throws {
        self.db = db
        self.query = query
        self.reading = reading
        self.lower = reading.folded
        self.upper = NameFolding.upperBound(ofPrefix: reading.folded)
        self.hyphenated = reading.folded == query.folded ? query.hyphenated : nil
        self.budget = budget
        self.rowBudget = budget
        self.summary = try RawStatement(
            db, sql: "SELECT latitude, longitude, population, country_code, admin1_code, name, ascii_name FROM place WHERE id = ?")
    }

    var enough: Bool { candidates.count >= query.limit || budget <= 0 }

    mutating func near(_ point: Coordinate) throws {
        var searched = Set<GeoBox>()
        let neighbourhood = GeoBox.neighbourhood(of: point)
        searched.formUnion(neighbourhood)
        try scanKeys(neighbourhood.map(\.key), level: .box, exact: false, point: point, beyondRadius: false)
        for ring in 1...2 where !enough {
            let boxes = point.box.ring(ring).filter { searched.insert($0).inserted }
            try scanKeys(boxes.map(\.key), level: .box, exact: false, point: point, beyondRadius: false)
        }
        let cells = CellCover.cells(around: point, radiusKilometres: query.radiusKilometres).map(\.key)
        // Nearest cells first, a band per statement (one seek per cell either way; fewer
        // statements cost less than finer stopping).
        var scanned = 0
        while scanned < cells.count && !enough {
            let band = Array(cells[scanned..<min(scanned + Self.keysPerStatement, cells.count)])
            scanned += band.count
            try scanKeys(band, level: .cell, exact: false, point: point, beyondRadius: false)
        }
        // Cells the prefix scan did not reach still answer exact matches: typing a whole
        // name finds it anywhere within the radius.
        if scanned < cells.count {
            try scanKeys(Array(cells[scanned...]), level: .cell, exact: true, point: point, beyondRadius: false)
        }
    }

    /// The population tiers, largest first: exact matches in every tier, then prefix matches
    /// tier by tier until enough. From a point, this completes the nearby places with places
    /// anywhere (their distance reported, not weighed).
    mutating func worldwide(from point: Coordinate?) throws {
        try scanKeys(Self.tiers, level: .tier, exact: true, point: point, beyondRadius: true)
        for tier in Self.tiers where !enough {
            try scanKeys([tier], level: .tier, exact: false, point: point, beyondRadius: true)
        }
    }

    /// The population tiers, largest first (`PlaceLevels.tier`).
    static let tiers = (0...19).map { Int64($0) }

    enum Level: String {
        case box, cell, tier
    }

    /// Keys per statement. Statements have a fixed number of placeholders (short lists are
    /// padded with a repeated key, which `IN` ignores) so that the statement cache holds a
    /// handful of statements instead of one per distinct key list.
    static let keysPerStatement = 8

    /// Binds up to `keysPerStatement` keys to a statement's first placeholders, a short list
    /// padded with its first key.
    static func bindKeys(_ keys: ArraySlice<Int64>, to statement: RawStatement) {
        for index in 0..<keysPerStatement {
            statement.bind(Int32(index + 1), index < keys.count ? keys[keys.startIndex + index] : keys[keys.startIndex])
        }
    }

    /// Exact rows read per statement: three times `limit` past the places already found, since
    /// a smaller place's own name may outrank a larger place's alternate name; within a
    /// region, up to the row budget, since the region keeps only some of them. (Every exact
    /// row up to the budget cost 2.5x at the median on the synthetic world, whose short Han
    /// names are shared by hundreds of places.)
    var exactRowLimit: Int {
        let wanted = 3 * query.limit + candidates.count
        return reading.regions.isEmpty ? wanted : max(rowBudget, wanted)
    }

    /// Scans `keys` of a level for the prefix (or, `exact`, the whole query). `beyondRadius`:
    /// places farther than the radius from `point` are kept (as not nearby) instead of
    /// skipped.
    mutating func scanKeys(_ keys: [Int64], level: Level, exact: Bool, point: Coordinate?, beyondRadius: Bool) throws {
        var start = 0
        let column = level.rawValue
        let placeholders = Array(repeating: "?", count: Self.keysPerStatement).joined(separator: ",")
        let sql =
            exact
            ? "SELECT place_id, folded FROM place_name_\(column) WHERE \(column) IN (\(placeholders)) AND folded = ? LIMIT ?"
            : "SELECT place_id, folded FROM place_name_\(column) WHERE \(column) IN (\(placeholders)) AND folded >= ? AND folded < ? LIMIT ?"
        while start < keys.count && (exact || budget > 0) {
            let chunk = keys[start..<min(start + Self.keysPerStatement, keys.count)]
            start += chunk.count
            let statement = try RawStatement(db, sql: sql)
            Self.bindKeys(chunk, to: statement)
            let next = Int32(Self.keysPerStatement + 1)
            statement.bind(next, lower)
            if exact {
                statement.bind(next + 1, Int64(exactRowLimit))
            } else {
                statement.bind(next + 1, upper)
                statement.bind(next + 2, Int64(budget))
            }
            try scan(statement, point: point, countsAgainstBudget: !exact, beyondRadius: beyondRadius)
        }
    }

    /// Reads the `(place_id, folded)` rows of a name query and adds the places they name.
    mutating func scan(_ rows: RawStatement, point: Coordinate?, countsAgainstBudget: Bool, beyondRadius: Bool) throws {
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
            defer { summary.reset() }
            guard try summary.next() else { continue }
            guard reading.admits(countryCode: summary.text(3), admin1Code: summary.text(4)) else { continue }
            let population = summary.int64(2)
            var distance: Double?
            var isNearby = true
            if let point {
                let coordinate = Coordinate(uncheckedLatitude: summary.double(0), longitude: summary.double(1))
                let km = point.distanceKilometres(to: coordinate)
                isNearby = km <= query.radiusKilometres
                guard isNearby || beyondRadius else { continue }
                distance = km
            }
            let own = NameFolding.compare(utf8: summary.textBytes(5), foldedQuery: lower)
            let ownASCII = NameFolding.compare(utf8: summary.textBytes(6), foldedQuery: lower)
            // A short alternate form (a code, an abbreviation) matches only when equal.
            if !exact && rows.byteCount(1) <= PlaceRanking.shortFormBytes && !own.isPrefix && !ownASCII.isPrefix { continue }
            candidates[id] = Candidate(
                id: id, isExact: exact, isNearby: isNearby, population: population, distance: distance,
                score: PlaceRanking.score(population: population, distanceKilometres: distance, isNearby: isNearby),
                ownName: (own.isPrefix || ownASCII.isPrefix, own.isEqual || ownASCII.isEqual),
                continuesAsTyped: hyphenated.map { hyphenated in
                    PlaceRanking.continuesAsTyped(name: summary.text(5), asciiName: summary.text(6), hyphenated: hyphenated)
                } ?? true)
        }
    }

    /// The best `limit` candidates, each candidate's name kind (`PlaceRanking.nameKind`)
    /// read lazily: every candidate starts as own (the best kind); those in the top `limit`
    /// are settled (own when the name or ASCII name of their summary row matches in their
    /// class, else from their alternate names), a lowered one moved down to its new place,
    /// until the top holds only settled kinds. Reading can only lower a kind, so the top is
    /// then exact. At most `maximumKindLookups` places are settled; any others count as
    /// informal. The candidates are sorted once (their keys made once): ranking them all
    /// again on every round was a third of a search's CPU.
    mutating func rankSettlingNameKinds() throws -> [Candidate] {
        var order = candidates.values.map { (key: $0.rankingKey.ranked, id: $0.id) }
        order.sort { PlaceRanking.ranksBeforeRanked($0.key, $1.key) }
        var settled = Set<Int64>()
        var lookups = 0
        while lookups < Self.maximumKindLookups {
            let pending = order.prefix(query.limit).map(\.id).filter { !settled.contains($0) }
            guard !pending.isEmpty else { return order.prefix(query.limit).compactMap { candidates[$0.id] } }
            let round = Array(pending.prefix(Self.maximumKindLookups - lookups))
            let withAlternates = try placesWithAlternateNames(round.filter { candidates[$0]?.matchesOwnName == false })
            for id in round {
                lookups += 1
                settled.insert(id)
                guard var candidate = candidates[id] else { continue }
                let kind = try nameKind(of: candidate, hasAlternateNames: withAlternates.contains(id))
                guard kind != candidate.nameKind else { continue }
                candidate.nameKind = kind
                candidates[id] = candidate
                order.removeAll { $0.id == id }
                let key = candidate.rankingKey.ranked
                order.insert((key, id), at: PlaceRanking.insertionIndex(of: key, in: order, key: \.key))
            }
        }
        // Lookups spent with unsettled places still in the top: those count as informal.
        for id in candidates.keys where !settled.contains(id) { candidates[id]?.nameKind = .informal }
        return Candidate.top(candidates.values, limit: query.limit)
    }

    /// A candidate's name kind: own when its name or ASCII name matches in its class (known
    /// from its summary row); otherwise from its alternate names. Without entries in the
    /// alternate names table (`hasAlternateNames`, probed for a round's candidates at once)
    /// a name is in no language (informal), and the place is not read.
    func nameKind(of candidate: Candidate, hasAlternateNames: Bool) throws -> PlaceNameKind {
        if candidate.matchesOwnName { return .own }
        guard hasAlternateNames, let place = try GRDBPlaceIndex.place(db, id: candidate.id) else { return .informal }
        return PlaceRanking.nameKind(of: place, foldedQuery: lower, exact: candidate.isExact, languages: query.languages)
    }

    /// Which of `ids` have entries in the alternate names table: one index probe each, a
    /// statement per `keysPerStatement` of them (a statement per place cost more than its probe).
    func placesWithAlternateNames(_ ids: [Int64]) throws -> Set<Int64> {
        var found = Set<Int64>()
        let placeholders = Array(repeating: "?", count: Self.keysPerStatement).joined(separator: ",")
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + Self.keysPerStatement, ids.count)]
            start += chunk.count
            let statement = try RawStatement(db, sql: "SELECT DISTINCT place_id FROM alternate_name WHERE place_id IN (\(placeholders))")
            Self.bindKeys(chunk, to: statement)
            while try statement.next() { found.insert(statement.int64(0)) }
        }
        return found
    }
}
