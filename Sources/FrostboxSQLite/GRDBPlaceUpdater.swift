import FrostboxCore
import GRDB

/// A set of changes to the stored places, as GeoNames' daily files carry them.
public struct PlaceChanges: Sendable {
    /// New or modified places (`modifications-…txt`): each replaces the stored place with
    /// its geonameid. Their `alternates` are ignored: alternate names come from `alternates`.
    public var places: [Place] = []
    /// Deleted geonameids (`deletes-…txt`); the place's alternate names go with it.
    public var deletedPlaces: [Int64] = []
    /// New or modified alternate names (`alternateNamesModifications-…txt`), by alternateNameId.
    public var alternates: [AlternateName] = []
    /// Deleted alternateNameIds (`alternateNamesDeletes-…txt`).
    public var deletedAlternates: [Int64] = []
    public var admin1: [Admin1Division] = []
    public var countries: [CountryInfo] = []

    public init() {}

    public var isEmpty: Bool {
        places.isEmpty && deletedPlaces.isEmpty && alternates.isEmpty && deletedAlternates.isEmpty && admin1.isEmpty
            && countries.isEmpty
    }
}

/// What applying changes did.
public struct PlaceUpdateResult: Sendable, Hashable {
    /// Places written (new or replacing a stored one).
    public var placesWritten = 0
    /// Of those, how many replaced a stored place.
    public var placesReplaced = 0
    public var placesDeleted = 0
    /// Deletes of geonameids that are not stored: counted, not an error.
    public var unknownPlaceDeletes = 0
    public var alternatesWritten = 0
    public var alternatesDeleted = 0
    /// Deletes of alternateNameIds that are not stored.
    public var unknownAlternateDeletes = 0
    /// Alternate names of places that are not stored (left out, as an import leaves them out).
    public var alternatesOfUnknownPlaces = 0
    /// Places whose name rows were recomputed, and the name rows added and removed.
    public var placesReindexed = 0
    public var nameRowsAdded = 0
    public var nameRowsRemoved = 0
}

/// Applies `PlaceChanges` in place, in one transaction: the stored places and alternate
/// names are replaced or deleted by id, and the name index rows of every place concerned are
/// recomputed from what is stored before and after (only the difference is written). The
/// index therefore ends exactly as a full import of the same end state builds it, and
/// applying the same changes twice changes nothing the second time. Readers (searches) keep
/// the previous state until the commit.
public struct GRDBPlaceUpdater: Sendable {
    let database: PlacesDatabase

    public init(database: PlacesDatabase) {
        self.database = database
    }

    /// One name index row: level (0 box, 1 cell, 2 tier), key, folded name.
    struct NameRow: Hashable {
        let level: Int
        let key: Int64
        let folded: String
    }

    public func apply(_ changes: PlaceChanges) throws -> PlaceUpdateResult {
        try database.pool.writeWithoutTransaction { db in
            // The changes touch pages all over a file of gigabytes: a larger page cache for
            // this connection while they are applied, and reads through the memory map.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            try db.execute(sql: "PRAGMA cache_size = -262144; PRAGMA mmap_size = 68719476736")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            var result = PlaceUpdateResult()
            try db.inTransaction {
                result = try Self.apply(changes, db)
                return .commit
            }
            return result
        }
    }

    static func apply(_ changes: PlaceChanges, _ db: Database) throws -> PlaceUpdateResult {
        var result = PlaceUpdateResult()
        let ordered = try concernedPlaces(changes, db)
        var before: [Int64: Place] = [:]
        for id in ordered {
            if let place = try storedPlace(db, id: id) { before[id] = place }
        }
        try writePlaces(changes.places, before: before, db, &result)
        try writeAlternates(changes.alternates, before: before, db, &result)
        try delete(changes, db, &result)
        try writeDivisionsAndCountries(changes, db)
        try reindex(ordered, before: before, db, &result)
        return result
    }

    /// Every place whose names may change, in id order: the places written or deleted, and
    /// the owners (old and new) of the alternate names written or deleted.
    static func concernedPlaces(_ changes: PlaceChanges, _ db: Database) throws -> [Int64] {
        var concerned = Set(changes.places.map(\.id))
        concerned.formUnion(changes.deletedPlaces)
        concerned.formUnion(changes.alternates.map(\.placeID))
        let owner = try db.cachedStatement(sql: "SELECT place_id FROM alternate_name WHERE id = ?")
        for id in changes.alternates.map(\.id) + changes.deletedAlternates {
            if let placeID = try Int64.fetchOne(owner, arguments: [id]) { concerned.insert(placeID) }
        }
        return concerned.sorted()
    }

    static func writePlaces(_ places: [Place], before: [Int64: Place], _ db: Database, _ result: inout PlaceUpdateResult) throws {
        for place in places {
            var unchanged = place
            if let stored = before[place.id] {
                result.placesReplaced += 1
                unchanged.alternates = stored.alternates
                // The same row again (a file applied twice): nothing to write.
                if unchanged == stored {
                    result.placesWritten += 1
                    continue
                }
            }
            try write(place, db)
            result.placesWritten += 1
        }
    }

    static func writeAlternates(
        _ alternates: [AlternateName], before: [Int64: Place], _ db: Database, _ result: inout PlaceUpdateResult
    ) throws {
        let storedAlternates = Dictionary(
            before.values.flatMap(\.alternates).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let placeExists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM place WHERE id = ?)")
        let writeAlternate = try RawStatement(db, sql: PlaceRows.insertAlternate(into: "alternate_name"))
        for alternate in alternates {
            guard try Bool.fetchOne(placeExists, arguments: [alternate.placeID]) == true else {
                result.alternatesOfUnknownPlaces += 1
                // A stored name that moved to a place not stored goes away.
                try db.execute(sql: "DELETE FROM alternate_name WHERE id = ?", arguments: [alternate.id])
                continue
            }
            result.alternatesWritten += 1
            if storedAlternates[alternate.id] == alternate { continue }
            PlaceRows.bind(alternate, to: writeAlternate)
            try writeAlternate.execute()
        }
    }

    static func delete(_ changes: PlaceChanges, _ db: Database, _ result: inout PlaceUpdateResult) throws {
        for id in changes.deletedAlternates {
            try db.execute(sql: "DELETE FROM alternate_name WHERE id = ?", arguments: [id])
            if db.changesCount > 0 { result.alternatesDeleted += 1 } else { result.unknownAlternateDeletes += 1 }
        }
        for id in changes.deletedPlaces {
            try db.execute(sql: "DELETE FROM place WHERE id = ?", arguments: [id])
            if db.changesCount > 0 { result.placesDeleted += 1 } else { result.unknownPlaceDeletes += 1 }
            try db.execute(sql: "DELETE FROM alternate_name WHERE place_id = ?", arguments: [id])
        }
    }

    static func writeDivisionsAndCountries(_ changes: PlaceChanges, _ db: Database) throws {
        for division in changes.admin1 {
            try db.execute(
                sql: "INSERT OR REPLACE INTO admin1 (code, name, ascii_name, geonameid) VALUES (?, ?, ?, ?)",
                arguments: [division.code, division.name, division.asciiName, division.geonameID])
        }
        for country in changes.countries {
            try db.execute(
                sql: "INSERT OR REPLACE INTO country (code, name, capital, population, continent, geonameid) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [country.code, country.name, country.capital, country.population, country.continent, country.geonameID])
        }
    }

    static func reindex(_ ordered: [Int64], before: [Int64: Place], _ db: Database, _ result: inout PlaceUpdateResult) throws {
        // The name rows that change, applied in index order (each B-tree page visited once).
        var removed: [(NameRow, Int64)] = []
        var added: [(NameRow, Int64)] = []
        for id in ordered {
            let old = before[id].map(nameRows(of:)) ?? []
            let new = try storedPlace(db, id: id).map(nameRows(of:)) ?? []
            guard old != new else { continue }
            result.placesReindexed += 1
            removed += old.subtracting(new).map { ($0, id) }
            added += new.subtracting(old).map { ($0, id) }
        }
        let inIndexOrder: ((NameRow, Int64), (NameRow, Int64)) -> Bool = { a, b in
            if a.0.level != b.0.level { return a.0.level < b.0.level }
            if a.0.key != b.0.key { return a.0.key < b.0.key }
            if a.0.folded != b.0.folded { return Array(a.0.folded.utf8).lexicographicallyPrecedes(b.0.folded.utf8) }
            return a.1 < b.1
        }
        try write(removed.sorted(by: inIndexOrder), db) { level in
            "DELETE FROM place_name_\(level) WHERE \(level) = ? AND folded = ? AND place_id = ?"
        }
        try write(added.sorted(by: inIndexOrder), db) { level in
            "INSERT OR IGNORE INTO place_name_\(level) (\(level), folded, place_id) VALUES (?, ?, ?)"
        }
        result.nameRowsRemoved = removed.count
        result.nameRowsAdded = added.count
    }

    /// Runs `sql(level)` once per name row, bound to its key, folded name and place id.
    static func write(_ rows: [(NameRow, Int64)], _ db: Database, sql: (String) -> String) throws {
        let statements = try ["box", "cell", "tier"].map { level in try RawStatement(db, sql: sql(level)) }
        for (row, id) in rows {
            let statement = statements[row.level]
            statement.bind(1, row.key)
            statement.bind(2, row.folded)
            statement.bind(3, id)
            try statement.execute()
        }
    }

    /// The name index rows of a place (what the bulk import writes for it).
    static func nameRows(of place: Place) -> Set<NameRow> {
        var rows = Set<NameRow>()
        let keys = PlaceLevels.keys(of: place)
        for folded in place.foldedNames {
            // The bulk import cuts names at the run record's limit: the same here.
            let stored = NameRunBuffer.truncated(folded)
            rows.insert(NameRow(level: 0, key: keys.box, folded: stored))
            if let cell = keys.cell, let tier = keys.tier {
                rows.insert(NameRow(level: 1, key: cell, folded: stored))
                rows.insert(NameRow(level: 2, key: tier, folded: stored))
            }
        }
        return rows
    }

    /// Every stored alternate name, by place then id.
    public static func allAlternates(_ db: Database) throws -> [AlternateName] {
        try Row.fetchAll(db, sql: "SELECT \(PlaceRows.alternateColumns) FROM alternate_name ORDER BY place_id, id")
            .map(PlaceRows.alternate(_:))
    }

    /// The stored place with its alternate names, nil when not stored.
    public static func storedPlace(_ db: Database, id: Int64) throws -> Place? {
        let statement = try db.cachedStatement(sql: "SELECT \(PlaceRows.placeColumns) FROM place WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return PlaceRows.place(row, alternates: try PlaceRows.alternates(db, placeID: id))
    }

    static func write(_ place: Place, _ db: Database) throws {
        let statement = try RawStatement(db, sql: PlaceRows.insertPlace(into: "place"))
        PlaceRows.bind(place, to: statement)
        try statement.execute()
    }
}
