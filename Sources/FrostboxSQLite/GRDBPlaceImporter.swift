import FrostboxCore
import GRDB
import Logging

/// A batch of parsed places with their folded names, prepared off the writer (folding is
/// the expensive part of an import and runs on the parsing thread).
public struct PlaceBatch: Sendable {
    public var places: [Place] = []
    /// `foldedNames[i]` are the distinct folded name forms of `places[i]`.
    public var foldedNames: [[String]] = []

    public init() {}

    /// Adds a place, folding its names.
    public mutating func append(_ place: Place) {
        places.append(place)
        foldedNames.append(place.foldedNames)
    }

    public var count: Int { places.count }
    public var isEmpty: Bool { places.isEmpty }
}

/// What an import changed.
public struct PlaceImportResult: Sendable, Hashable {
    /// Place rows written by this import (after duplicates within it collapsed).
    public var imported: Int
    /// Of those, how many replaced a place already stored (same geonameid).
    public var replaced: Int
    /// Places stored after the import.
    public var total: Int
    /// Name rows in the 0.05° box level after the import.
    public var names: Int
    public var admin1: Int
    public var countries: Int
}

/// Bulk-loads places into SQLite so that an interrupted import never damages what is
/// stored, and a finished one replaces places by geonameid.
///
/// How: place rows go straight into a new `place_next` table and folded names into an
/// unindexed TEMP table, in large transactions without fsync (nothing there needs to
/// survive a crash). `finish()` then builds complete new name tables next to the live ones
/// with one sorted `INSERT … SELECT` each — new names plus the stored names of places this
/// import does not replace — adds the kept places to `place_next`, and swaps all four in
/// with one short transaction. A kill at any point leaves the previous tables intact;
/// leftovers are dropped by the next `begin()`.
///
/// Not thread-safe: drive one importer from one thread. Every call blocks on the database
/// writer, so call it from a dedicated thread, not from the async executor.
public final class GRDBPlaceImporter {
    let database: FrostboxDatabase
    let replace: Bool
    let logger: Logger
    private var sequence: Int64 = 0
    private var seen = IDSet()
    private var duplicates = 0
    private var admin1Count = 0
    private var countryCount = 0

    static let liveTables = ["place", "place_name_box", "place_name_cell", "place_name_tier"]

    /// `replace`: drop every stored place (not only those with an imported geonameid).
    public init(database: FrostboxDatabase, replace: Bool = false, logger: Logger = Logger(label: "frostbox.places")) {
        self.database = database
        self.replace = replace
        self.logger = logger
    }

    /// Clears leftovers of an interrupted import and creates the staging tables.
    public func begin() throws {
        try database.pool.writeWithoutTransaction { db in
            try Self.dropNextTables(db)
            try Self.dropStaging(db)
            try db.execute(
                sql: """
                    CREATE TEMP TABLE import_name (
                        place_id INTEGER NOT NULL, seq INTEGER NOT NULL, box INTEGER NOT NULL,
                        cell INTEGER, tier INTEGER, folded TEXT NOT NULL);
                    CREATE TEMP TABLE import_duplicate (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
                    CREATE TEMP TABLE import_admin1 AS SELECT * FROM main.admin1 WHERE 0;
                    CREATE TEMP TABLE import_country AS SELECT * FROM main.country WHERE 0;
                    """)
            // New place rows go straight into the next place table (GeoNames dumps come in
            // geonameid order, so this appends); the live table is not touched until the swap.
            try db.execute(sql: Self.createSQL(db, table: "place", as: "main.place_next"))
        }
    }

    /// Appends a batch to the staging tables in one transaction.
    public func add(_ batch: PlaceBatch) throws {
        guard !batch.isEmpty else { return }
        var duplicateRows: [(Int64, Int64)] = []
        var sequences: [Int64] = []
        sequences.reserveCapacity(batch.count)
        for place in batch.places {
            sequence += 1
            sequences.append(sequence)
            if !seen.insert(place.id) {
                duplicateRows.append((place.id, sequence))
                duplicates += 1
            }
        }
        try database.pool.writeWithoutTransaction { db in
            // The rows of an unfinished import need no fsync: a crash discards them anyway.
            // FULL comes back before this writer access ends, for everyone else's commits.
            try db.execute(sql: "PRAGMA synchronous = OFF")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            try db.inTransaction {
                let placeInsert = try RawStatement(
                    db,
                    sql: """
                        INSERT OR REPLACE INTO main.place_next
                        (id, latitude, longitude, population, feature_class, feature_code, country_code,
                         admin1_code, timezone, modified, name, ascii_name, alternate_names)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                let nameInsert = try RawStatement(
                    db, sql: "INSERT INTO temp.import_name (place_id, seq, box, cell, tier, folded) VALUES (?, ?, ?, ?, ?, ?)")
                for (index, place) in batch.places.enumerated() {
                    placeInsert.bind(1, place.id)
                    placeInsert.bind(2, place.coordinate.latitude)
                    placeInsert.bind(3, place.coordinate.longitude)
                    placeInsert.bind(4, place.population)
                    placeInsert.bind(5, place.featureClass)
                    placeInsert.bind(6, place.featureCode)
                    placeInsert.bind(7, place.countryCode)
                    placeInsert.bind(8, place.admin1Code)
                    placeInsert.bind(9, place.timezone)
                    placeInsert.bind(10, place.modified)
                    placeInsert.bind(11, place.name)
                    placeInsert.bind(12, place.asciiName)
                    placeInsert.bind(13, place.alternateNames)
                    try placeInsert.execute()
                    let coarse = place.isSettlementLike
                    nameInsert.bind(1, place.id)
                    nameInsert.bind(2, sequences[index])
                    nameInsert.bind(3, place.box.key)
                    nameInsert.bind(4, coarse ? PlaceLevels.cellKey(place.coordinate) : nil)
                    nameInsert.bind(5, coarse ? Int64(PlaceLevels.tier(population: place.population)) : nil)
                    for folded in batch.foldedNames[index] {
                        nameInsert.bind(6, folded)
                        try nameInsert.execute()
                    }
                }
                let duplicateStatement = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO temp.import_duplicate (id, seq) VALUES (?, ?)")
                for (id, seq) in duplicateRows {
                    try duplicateStatement.execute(arguments: [id, seq])
                }
                return .commit
            }
        }
    }

    /// Stages first-level division names (replacing by code when finished).
    public func addAdmin1(_ divisions: [Admin1Division]) throws {
        try database.pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let statement = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO temp.import_admin1 (code, name, ascii_name, geonameid) VALUES (?, ?, ?, ?)")
                for division in divisions {
                    try statement.execute(arguments: [division.code, division.name, division.asciiName, division.geonameID])
                }
                return .commit
            }
        }
        admin1Count += divisions.count
    }

    /// Stages countries (replacing by code when finished).
    public func addCountries(_ countries: [CountryInfo]) throws {
        try database.pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let statement = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO temp.import_country (code, name, capital, population, continent) VALUES (?, ?, ?, ?, ?)")
                for country in countries {
                    try statement.execute(arguments: [country.code, country.name, country.capital, country.population, country.continent])
                }
                return .commit
            }
        }
        countryCount += countries.count
    }

    /// Builds the new tables and swaps them in atomically. `progress` is told each step.
    public func finish(progress: (String) -> Void = { _ in }) throws -> PlaceImportResult {
        let replaceAll = replace
        let hasDuplicates = duplicates > 0
        return try database.pool.writeWithoutTransaction { db in
            defer { try? Self.dropStaging(db) }
            let imported = try Int.fetchOne(db, sql: "SELECT count(*) FROM main.place_next") ?? 0
            let rebuild = imported > 0 || replaceAll
            let replaced = replaceAll ? 0 : try Int.fetchOne(
                db, sql: "SELECT count(*) FROM main.place_next n WHERE EXISTS (SELECT 1 FROM main.place p WHERE p.id = n.id)") ?? 0
            if rebuild {
                try Self.withBulkSettings(db) {
                    try Self.buildNextTables(db, replaceAll: replaceAll, hasDuplicates: hasDuplicates, progress: progress)
                }
            }
            progress("swapping in")
            try db.inTransaction {
                if rebuild {
                    for table in Self.liveTables {
                        try db.execute(sql: "DROP TABLE main.\(table)")
                        try db.execute(sql: "ALTER TABLE main.\(table)_next RENAME TO \(table)")
                    }
                } else {
                    try Self.dropNextTables(db)
                }
                if replaceAll {
                    try db.execute(sql: "DELETE FROM main.admin1; DELETE FROM main.country")
                }
                try db.execute(sql: "INSERT OR REPLACE INTO main.admin1 SELECT * FROM temp.import_admin1")
                try db.execute(sql: "INSERT OR REPLACE INTO main.country SELECT * FROM temp.import_country")
                return .commit
            }
            // The bulk build went through the WAL: fold it back into the database file now
            // rather than leaving a WAL the size of the index behind.
            _ = try? db.checkpoint(.truncate)
            return PlaceImportResult(
                imported: imported, replaced: replaced,
                total: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.place") ?? 0,
                names: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.place_name_box") ?? 0,
                admin1: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.admin1") ?? 0,
                countries: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.country") ?? 0)
        }
    }

    /// Drops the staging tables without touching the live ones.
    public func abandon() {
        try? database.pool.writeWithoutTransaction { db in
            try Self.dropStaging(db)
            try Self.dropNextTables(db)
        }
    }

    // MARK: Building

    /// Builds the name tables from the staged names plus the stored names of places this
    /// import does not replace, then adds the kept places to `place_next`. Each table is
    /// filled by one `INSERT … SELECT … ORDER BY` its primary key: SQLite sorts once and
    /// appends, instead of inserting at random into a growing B-tree.
    static func buildNextTables(_ db: Database, replaceAll: Bool, hasDuplicates: Bool, progress: (String) -> Void) throws {
        for table in liveTables where table != "place" {
            try db.execute(sql: "DROP TABLE IF EXISTS main.\(table)_next")
            try db.execute(sql: createSQL(db, table: table, as: "main.\(table)_next"))
        }
        // A geonameid seen twice in this import keeps the names of its last row only.
        let latestOnly = hasDuplicates
            ? "WHERE NOT EXISTS (SELECT 1 FROM temp.import_duplicate d WHERE d.id = n.place_id AND d.seq <> n.seq)" : ""
        for (level, key) in [("box", "box"), ("cell", "cell"), ("tier", "tier")] {
            progress("indexing names by \(level)")
            let notNull = level == "box" ? "" : (latestOnly.isEmpty ? "WHERE \(key) IS NOT NULL" : "AND \(key) IS NOT NULL")
            let kept = replaceAll ? "" : """
                UNION ALL SELECT o.\(key), o.folded, o.place_id FROM main.place_name_\(level) o
                WHERE NOT EXISTS (SELECT 1 FROM main.place_next i WHERE i.id = o.place_id)
                """
            try db.inTransaction {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO main.place_name_\(level)_next (\(key), folded, place_id)
                    SELECT n.\(key), n.folded, n.place_id FROM temp.import_name n \(latestOnly) \(notNull)
                    \(kept)
                    ORDER BY 1, 2, 3
                    """)
                return .commit
            }
        }
        if !replaceAll {
            progress("keeping places not in this import")
            let columns = "id, latitude, longitude, population, feature_class, feature_code, country_code, admin1_code, timezone, modified, name, ascii_name, alternate_names"
            try db.inTransaction {
                try db.execute(sql: "INSERT OR IGNORE INTO main.place_next (\(columns)) SELECT \(columns) FROM main.place")
                return .commit
            }
        }
    }

    /// The live table's own `CREATE TABLE` statement (from the migrations), renamed: the
    /// import never restates the schema.
    static func createSQL(_ db: Database, table: String, as newName: String) throws -> String {
        // After a swap SQLite stores the renamed table's statement as `CREATE TABLE "place" (…`:
        // keep everything from the column list on.
        guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]),
            let columns = sql.firstIndex(of: "(")
        else {
            throw DatabaseError(message: "table \(table) is missing: database not migrated")
        }
        return "CREATE TABLE \(newName) " + sql[columns...]
    }

    static func dropNextTables(_ db: Database) throws {
        for table in liveTables {
            try db.execute(sql: "DROP TABLE IF EXISTS main.\(table)_next")
        }
    }

    static func dropStaging(_ db: Database) throws {
        for table in ["import_name", "import_duplicate", "import_admin1", "import_country"] {
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\(table)")
        }
    }

    /// Larger page cache and a two-thread sorter for the sorted builds, and no fsync per
    /// build commit: the next tables matter only once the swap commits, and that commit runs
    /// with the connection's usual `synchronous = FULL`, which syncs the WAL up to and
    /// including it (so the built tables are durable exactly when they become live).
    static func withBulkSettings(_ db: Database, _ body: () throws -> Void) throws {
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -262144; PRAGMA threads = 2; PRAGMA synchronous = OFF")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize); PRAGMA threads = 0; PRAGMA synchronous = FULL") }
        try body()
    }
}

/// A set of geonameids: a bitmap for the usual ids (< 2^31), a hash set beyond.
struct IDSet {
    private var bits: [UInt64] = []
    private var large = Set<Int64>()

    /// Inserts `id`; false when it was already there.
    mutating func insert(_ id: Int64) -> Bool {
        guard id >= 0, id < (1 << 31) else { return large.insert(id).inserted }
        let word = Int(id >> 6)
        if word >= bits.count {
            bits.append(contentsOf: repeatElement(0, count: max(word + 1 - bits.count, bits.count / 2)))
        }
        let mask: UInt64 = 1 << UInt64(id & 63)
        if bits[word] & mask != 0 { return false }
        bits[word] |= mask
        return true
    }
}
