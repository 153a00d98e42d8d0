import Foundation
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
/// How: place rows go straight into a new `place_next` table, in large transactions
/// without fsync (nothing there needs to survive a crash). Folded names are not staged in
/// SQLite: they are collected in memory and each full buffer is sorted and written to a
/// run file on a background thread (`NameRuns`). `finish()` merges the runs, together with
/// the stored names of places this import does not replace, into new name tables in
/// primary-key order (SQLite appends; it never sorts or inserts at random), adds the kept
/// places to `place_next`, and swaps all four tables in with one short transaction. A kill
/// at any point leaves the previous tables intact; leftovers (tables and run files) are
/// dropped by the next `begin()`.
///
/// Not thread-safe: drive one importer from one thread. Every call blocks on the database
/// writer, so call it from a dedicated thread, not from the async executor.
public final class GRDBPlaceImporter {
    let database: PlacesDatabase
    let replace: Bool
    let logger: Logger
    /// Bytes of name records held in memory before they are sorted into a run file.
    let runBytes: Int
    /// Where run files go: beside the database, on the disk that holds the index anyway.
    let runDirectory: String
    private var sequence: UInt32 = 0
    private var seen = IDSet()
    /// Distinct geonameids in this import: the rows of `place_next` before the kept places.
    private var distinctPlaces = 0
    /// For geonameids that occur more than once in this import: the last row's seq.
    private var latestSeq: [Int64: UInt32] = [:]
    private var names: NameRunBuffer
    private var spiller: NameRunSpiller
    /// Divisions and countries staged (`GRDBPlaceImporter+Staging.swift`).
    var admin1Count = 0
    var countryCount = 0
    /// Writes the import's dirty pages back as it goes (see `WritebackPacer`).
    private var pacer: WritebackPacer?

    static let liveTables = ["place", "place_name_box", "place_name_cell", "place_name_tier"]
    /// The name levels in record order (`NameRecord.level` is the index).
    static let levels = ["box", "cell", "tier"]

    /// `replace`: drop every stored place (not only those with an imported geonameid).
    /// `runBytes`: memory for name records before a run is written (two such buffers at
    /// most are alive at once).
    public init(
        database: PlacesDatabase, replace: Bool = false, runBytes: Int = 192 << 20,
        logger: Logger = Logger(label: "frostbox.places")
    ) {
        self.database = database
        self.replace = replace
        self.logger = logger
        self.runBytes = max(runBytes, 4096)
        self.runDirectory = database.path + ".import-runs"
        self.names = NameRunBuffer(capacity: 0)
        self.spiller = NameRunSpiller(directory: runDirectory)
    }

    /// Clears leftovers of an interrupted import and creates the staging tables.
    public func begin() throws {
        try resetRunDirectory(create: true)
        pacer?.stop()
        let databasePath = database.path
        let runDirectory = runDirectory
        // Never the places file itself: closing any descriptor of a file drops every POSIX
        // lock this process holds on it, SQLite's included. A server that seeded its places
        // lost its shared lock that way; the next `frostbox import` process then found the
        // file unlocked when it closed, deleted the WAL and shared memory under the server,
        // and the server kept reading the deleted ones: later committed days stayed
        // invisible to it. SQLite takes no lock on the WAL file.
        pacer = WritebackPacer {
            let runs = (try? FileManager.default.contentsOfDirectory(atPath: runDirectory)) ?? []
            return [databasePath + "-wal"] + runs.map { runDirectory + "/" + $0 }
        }
        names = NameRunBuffer(capacity: runBytes + runBytes / 8)
        try database.pool.writeWithoutTransaction { db in
            try Self.dropNextTables(db)
            try Self.dropStaging(db)
            try db.execute(
                sql: """
                    CREATE TEMP TABLE import_admin1 AS SELECT * FROM main.admin1 WHERE 0;
                    CREATE TEMP TABLE import_country AS SELECT * FROM main.country WHERE 0;
                    CREATE TEMP TABLE import_alternate_name AS SELECT * FROM main.alternate_name WHERE 0;
                    """)
            // New place rows go straight into the next place table (GeoNames dumps come in
            // geonameid order, so this appends); the live table is not touched until the swap.
            try db.execute(sql: Self.createSQL(db, table: "place", as: "main.place_next"))
        }
    }

    /// Appends a batch: place rows to `place_next` in one transaction, names to the runs.
    public func add(_ batch: PlaceBatch) throws {
        guard !batch.isEmpty else { return }
        try database.pool.writeWithoutTransaction { db in
            // The rows of an unfinished import need no fsync: a crash discards them anyway.
            // FULL comes back before this writer access ends, for everyone else's commits.
            try db.execute(sql: "PRAGMA synchronous = OFF")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            try db.inTransaction {
                let placeInsert = try RawStatement(db, sql: PlaceRows.insertPlace(into: "main.place_next"))
                for place in batch.places {
                    PlaceRows.bind(place, to: placeInsert)
                    try placeInsert.execute()
                }
                return .commit
            }
        }
        for (index, place) in batch.places.enumerated() {
            sequence += 1
            if seen.insert(place.id) {
                distinctPlaces += 1
            } else {
                latestSeq[place.id] = sequence
            }
            let keys = PlaceLevels.keys(of: place)
            for folded in batch.foldedNames[index] {
                names.append(level: 0, key: keys.box, placeID: place.id, seq: sequence, folded: folded)
                if let cell = keys.cell, let tier = keys.tier {
                    names.append(level: 1, key: cell, placeID: place.id, seq: sequence, folded: folded)
                    names.append(level: 2, key: tier, placeID: place.id, seq: sequence, folded: folded)
                }
            }
        }
        if names.byteCount >= runBytes {
            try spiller.submit(names)
            names = NameRunBuffer(capacity: runBytes + runBytes / 8)
        }
    }

    /// Builds the new tables and swaps them in atomically. `progress` is told each step.
    public func finish(progress: (String) -> Void = { _ in }) throws -> PlaceImportResult {
        defer {
            try? resetRunDirectory(create: false)
            pacer?.stop()
        }
        progress("sorting names")
        let runs = try sortedRuns()
        let replaceAll = replace
        let latestSeq = latestSeq
        let imported = distinctPlaces
        return try database.pool.writeWithoutTransaction { db in
            defer { try? Self.dropStaging(db) }
            let rebuild = imported > 0 || replaceAll
            // Counting means scanning gigabytes on a large import: only when places are stored.
            let keepStored = try !replaceAll && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM main.place)") == true
            let replaced =
                !keepStored
                ? 0
                : try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM main.place_next n WHERE EXISTS (SELECT 1 FROM main.place p WHERE p.id = n.id)") ?? 0
            var built = (boxRows: 0, keptPlaces: 0)
            if rebuild {
                try Self.withBulkSettings(db) {
                    built = try Self.buildNextTables(
                        db, pool: database.pool, runs: runs, replaceAll: !keepStored, latestSeq: latestSeq, progress: progress)
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
                    try db.execute(sql: "DELETE FROM main.admin1; DELETE FROM main.country; DELETE FROM main.alternate_name")
                }
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO main.alternate_name SELECT * FROM temp.import_alternate_name s
                        WHERE EXISTS (SELECT 1 FROM main.place p WHERE p.id = s.place_id)
                        """)
                try db.execute(sql: "INSERT OR REPLACE INTO main.admin1 SELECT * FROM temp.import_admin1")
                try db.execute(sql: "INSERT OR REPLACE INTO main.country SELECT * FROM temp.import_country")
                return .commit
            }
            // The bulk build went through the WAL: fold it back into the database file now
            // rather than leaving a WAL the size of the index behind.
            _ = try? db.checkpoint(.truncate)
            return PlaceImportResult(
                imported: imported, replaced: replaced,
                total: rebuild ? imported + built.keptPlaces : try Int.fetchOne(db, sql: "SELECT count(*) FROM main.place") ?? 0,
                names: rebuild ? built.boxRows : try Int.fetchOne(db, sql: "SELECT count(*) FROM main.place_name_box") ?? 0,
                admin1: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.admin1") ?? 0,
                countries: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.country") ?? 0)
        }
    }

    /// Writes the names still in memory as the last run; readers of every run, in order.
    func sortedRuns() throws -> [NameRunReader] {
        if !names.isEmpty {
            try spiller.submit(names)
            names = NameRunBuffer(capacity: 0)
        }
        return try spiller.wait().map { path throws(NameRunError) in try NameRunReader(path: path) }
    }

    /// Drops the staging tables and run files without touching the live tables.
    public func abandon() {
        pacer?.stop()
        _ = try? spiller.wait()
        try? resetRunDirectory(create: false)
        try? database.pool.writeWithoutTransaction { db in
            try Self.dropStaging(db)
            try Self.dropNextTables(db)
        }
    }

    private func resetRunDirectory(create: Bool) throws {
        let files = FileManager.default
        if files.fileExists(atPath: runDirectory) {
            try files.removeItem(atPath: runDirectory)
        }
        if create {
            try files.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        }
    }

    // MARK: Building

    /// Builds the name tables by merging the sorted runs with the stored names of places
    /// this import does not replace, in primary-key order (every insert appends), then adds
    /// the kept places to `place_next`. Returns the rows of the box level and the places kept.
    /// `replaceAll`: keep nothing stored (a `--replace` import, or nothing is stored).
    ///
    /// Two threads: a merge thread reads the runs (and, through its own reader connection
    /// of `pool`, the stored names) and hands batches of records over; this thread inserts
    /// them. Merging and inserting cost about the same, so the two cores share the work.
    static func buildNextTables(
        _ db: Database, pool: DatabasePool, runs: [NameRunReader], replaceAll: Bool, latestSeq: [Int64: UInt32],
        progress: (String) -> Void
    ) throws -> (boxRows: Int, keptPlaces: Int) {
        for table in liveTables where table != "place" {
            try db.execute(sql: "DROP TABLE IF EXISTS main.\(table)_next")
            try db.execute(sql: createSQL(db, table: table, as: "main.\(table)_next"))
        }
        let inserts = try levels.map { name in
            try RawStatement(db, sql: "INSERT OR IGNORE INTO main.place_name_\(name)_next (\(name), folded, place_id) VALUES (?, ?, ?)")
        }
        // Stored names to keep come through a reader connection of the pool; without any
        // the merge reads run files only.
        let merge = NameMergeThread(runs: runs, storedFrom: replaceAll ? nil : pool, latestSeq: latestSeq)
        merge.start()
        var boxRows = 0
        do {
            try db.inTransaction {
                var level = -1
                while let batch = merge.batches.take() {
                    try batch.withUnsafeBytes { buffer in
                        guard var record = buffer.baseAddress else { return }
                        let end = record + buffer.count
                        while record < end {
                            let recordLevel = Int(NameRecord.level(record))
                            if recordLevel != level {
                                level = recordLevel
                                progress("indexing names by \(levels[level])")
                            }
                            let insert = inserts[level]
                            insert.bind(1, NameRecord.key(record))
                            insert.bindText(2, bytes: record + NameRecord.headerSize, count: NameRecord.length(record))
                            insert.bind(3, NameRecord.placeID(record))
                            try insert.execute()
                            if level == 0 { boxRows += 1 }
                            record += NameRecord.size(record)
                        }
                    }
                }
                try merge.join()
                return .commit
            }
        } catch {
            merge.batches.fail()
            try? merge.join()
            throw error
        }
        var keptPlaces = 0
        if !replaceAll {
            progress("keeping places not in this import")
            let columns = PlaceRows.placeColumns
            try db.inTransaction {
                try db.execute(sql: "INSERT OR IGNORE INTO main.place_next (\(columns)) SELECT \(columns) FROM main.place")
                keptPlaces = db.changesCount
                return .commit
            }
        }
        return (boxRows, keptPlaces)
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
        // import_name and import_duplicate: staging tables of earlier versions.
        for table in ["import_name", "import_duplicate", "import_admin1", "import_country", "import_alternate_name"] {
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\(table)")
        }
    }

    /// Larger page cache and no fsync per build commit: the next tables matter only once
    /// the swap commits, and that commit runs with the connection's usual
    /// `synchronous = FULL`, which syncs the WAL up to and including it (so the built tables
    /// are durable exactly when they become live).
    static func withBulkSettings(_ db: Database, _ body: () throws -> Void) throws {
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -262144; PRAGMA synchronous = OFF")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize); PRAGMA synchronous = FULL") }
        try body()
    }
}
