import Foundation
import FrostboxBundledPlaces
import FrostboxCore
import FrostboxDoubles
import FrostboxPlaceImport
import FrostboxSQLite
import Logging
import Synchronization
import Testing
import ZIPFoundation

@Suite("Place import runs (reader and writer threads, filters, summary, seeding)")
struct PlaceImportTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let database: PlacesDatabase

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-import")
        database = try PlacesDatabase(path: temporary.path("db.sqlite"))
    }

    static var extractPath: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("data/geonames/nordic-cities1000.txt").path
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func count(_ sql: String) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("dirty lines are skipped and summarised by reason with their first line numbers")
    func dirtySummary() async throws {
        let extract = try Data(contentsOf: URL(fileURLWithPath: Self.extractPath))
        let helsinki = try String(contentsOfFile: Self.extractPath, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("658225\t") }!
        var fields = helsinki.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[4] = "91.5"
        var dirty = Array(extract)
        dirty += Array((fields.joined(separator: "\t") + "\n").utf8)  // line 2306
        dirty += Array("only\tthree\tcolumns\n".utf8)  // line 2307
        dirty += Array("\n".utf8)  // line 2308
        var badBytes = Array(helsinki.utf8)
        badBytes.insert(0xFF, at: 9)
        dirty += badBytes + [0x0A]  // line 2309
        let path = try write("FI.txt", dirty)
        var options = PlaceImportOptions()
        options.batchSize = 700
        let summary = try await PlaceImport.run(paths: [path], options: options, database: database, logger: Logger(label: "test"))
        #expect(summary.rowsRead == 2309)
        #expect(summary.accepted == 2305)
        #expect(summary.skippedCount == 4)
        #expect(summary.skipped[.invalidLatitude]?.firstLines == ["FI.txt:2306"])
        #expect(summary.skipped[.wrongColumnCount]?.firstLines == ["FI.txt:2307"])
        #expect(summary.skipped[.emptyLine]?.firstLines == ["FI.txt:2308"])
        #expect(summary.skipped[.invalidEncoding]?.firstLines == ["FI.txt:2309"])
        #expect(summary.result?.total == 2305)
        #expect(summary.text.contains("invalid_latitude: 1 (first: FI.txt:2306)"))
        #expect(try await count("SELECT count(*) FROM place") == 2305)
    }

    @Test("--countries, --feature-classes and --min-population filter rows")
    func filters() async throws {
        var options = PlaceImportOptions()
        options.countries = PlaceImportOptions.codeSet("fi, SE")
        options.featureClasses = PlaceImportOptions.codeSet("P")
        options.minimumPopulation = 50_000
        let summary = try await PlaceImport.run(paths: [Self.extractPath], options: options, database: database, logger: Logger(label: "test"))
        #expect(summary.accepted > 5)
        #expect(summary.accepted + summary.filtered == 2305)
        #expect(try await count("SELECT count(*) FROM place WHERE country_code NOT IN ('FI', 'SE') OR population < 50000 OR feature_class <> 'P'") == 0)
        #expect(try await count("SELECT count(*) FROM place") == summary.accepted)
    }

    @Test("admin1 and country files are imported with the dump and label results")
    func namesFiles() async throws {
        let admin1 = try write("admin1CodesASCII.txt", Array("FI.01\tUusimaa\tUusimaa\t830709\n".utf8))
        let countries = try write(
            "countryInfo.txt",
            Array("#ISO\tISO3\n FI\tFIN\t246\tFI\tFinland\tHelsinki\t337030\t5518050\tEU\nFI\tFIN\t246\tFI\tFinland\tHelsinki\t337030\t5518050\tEU\n".utf8))
        let summary = try await PlaceImport.run(
            paths: [Self.extractPath, admin1, countries], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        #expect(summary.admin1Read == 1)
        #expect(summary.countriesRead == 1)
        let espoo = try #require(try await GRDBPlaceIndex(database: database).search(try PlaceQuery(text: "espoo")).first)
        #expect(espoo.admin1Name == "Uusimaa")
        #expect(espoo.countryName == "Finland")
    }

    @Test("a second import into the same database is refused while the first holds the lock")
    func oneImportAtATime() async throws {
        let lockPath = database.path + ".import-lock"
        let held = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(held >= 0)
        try #require(flock(held, LOCK_EX | LOCK_NB) == 0)
        await #expect(throws: PlaceImportError.alreadyRunning(database.path)) {
            try await PlaceImport.run(paths: [Self.extractPath], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        }
        #expect(try await count("SELECT count(*) FROM place") == 0)
        // Once the holder is gone, the import runs.
        close(held)
        let summary = try await PlaceImport.run(paths: [Self.extractPath], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        #expect(summary.result?.total == 2305)
    }

    @Test("an error while building the indexes ends the import with that error, not a hang", .timeLimit(.minutes(3)))
    func failureAfterReading() async throws {
        _ = try await PlaceImport.run(paths: [Self.extractPath], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        // A damaged database: the build of the next name tables cannot copy this table's schema.
        try await database.pool.write { db in try db.execute(sql: "DROP TABLE place_name_tier") }
        await #expect(throws: (any Error).self) {
            try await PlaceImport.run(paths: [Self.extractPath], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        }
        // The places stored before are untouched, and nothing staged is left behind.
        #expect(try await count("SELECT count(*) FROM place") == 2305)
        #expect(try await count("SELECT count(*) FROM sqlite_master WHERE name LIKE '%_next'") == 0)
        #expect(!FileManager.default.fileExists(atPath: database.path + ".import-runs"))
    }

    @Test("an unreadable file fails the import before anything changes")
    func unreadable() async throws {
        _ = try await PlaceImport.run(paths: [Self.extractPath], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        let broken = try write("broken.zip", Array("not a zip".utf8))
        await #expect(throws: (any Error).self) {
            _ = try await PlaceImport.run(paths: [Self.extractPath, broken], options: PlaceImportOptions(), database: database, logger: Logger(label: "test"))
        }
        await #expect(throws: (any Error).self) {
            _ = try await PlaceImport.run(
                paths: [self.directory.appendingPathComponent("missing.txt").path], options: PlaceImportOptions(), database: database,
                logger: Logger(label: "test"))
        }
        #expect(try await count("SELECT count(*) FROM place") == 2305)
        #expect(try await count("SELECT count(*) FROM sqlite_master WHERE name LIKE '%_next'") == 0)
    }

    @Test("serve's seeding imports a seed file into an empty database only, and survives a missing file")
    func seeding() async throws {
        let logger = Logger(label: "test")
        await PlaceImport.seedIfEmpty(.file(directory.appendingPathComponent("missing.txt").path), database: database, logger: logger)
        #expect(try await count("SELECT count(*) FROM place") == 0)
        await PlaceImport.seedIfEmpty(.file(Self.extractPath), database: database, logger: logger)
        #expect(try await count("SELECT count(*) FROM place") == 2305)
        try await database.pool.write { db in try db.execute(sql: "UPDATE place SET name = 'Changed' WHERE id = 658225") }
        await PlaceImport.seedIfEmpty(.file(Self.extractPath), database: database, logger: logger)
        #expect(try await count("SELECT count(*) FROM place WHERE name = 'Changed'") == 1)
    }

    @Test("the extract compiled into the binary seeds the same places as data/geonames, from no file, and leaves no temporary file")
    func bundledSeeding() async throws {
        let logger = Logger(label: "test")
        let scratch = directory.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
        await PlaceImport.seedIfEmpty(.bundled, database: database, logger: logger, temporaryDirectory: scratch)
        #expect(try await count("SELECT count(*) FROM place") == BundledPlaces.placeCount)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)

        let fromText = try PlacesDatabase(path: temporary.path("text.sqlite"))
        await PlaceImport.seedIfEmpty(.file(Self.extractPath), database: fromText, logger: logger)
        let sql = "SELECT id || '|' || name || '|' || latitude || '|' || longitude || '|' || population FROM place ORDER BY id"
        let bundledRows = try await database.pool.read { db in try String.fetchAll(db, sql: sql) }
        let textRows = try await fromText.pool.read { db in try String.fetchAll(db, sql: sql) }
        #expect(bundledRows.count == 2305)
        #expect(bundledRows == textRows)
    }

    @Test("the bundled archive holds exactly data/geonames/nordic-cities1000.txt (regenerate with tools/bundled-places/generate.py)")
    func bundledArchiveMatchesText() throws {
        let archive = try Archive(data: Data(BundledPlaces.archive), accessMode: .read)
        let entries = Array(archive)
        #expect(entries.map(\.path) == ["nordic-cities1000.txt"])
        var unpacked = Data()
        _ = try archive.extract(entries[0]) { unpacked.append($0) }
        #expect(unpacked == (try Data(contentsOf: URL(fileURLWithPath: Self.extractPath))))
    }

    @Test("progress reports rows, rate, percentage and ETA, then the index phases")
    func progress() async throws {
        let reports = Mutex<[PlaceImportProgress]>([])
        var options = PlaceImportOptions()
        options.batchSize = 100
        _ = try await PlaceImport.run(paths: [Self.extractPath], options: options, database: database, logger: Logger(label: "test")) { progress in
            reports.withLock { $0.append(progress) }
        }
        let all = reports.withLock { $0 }
        #expect(all.last?.phase == "swapping in")
        #expect(all.contains { $0.phase == "indexing names by box" })
        #expect(all.allSatisfy { $0.totalBytes == Int64(try! Data(contentsOf: URL(fileURLWithPath: Self.extractPath)).count) })
        #expect(all.map(\.rowsRead) == all.map(\.rowsRead).sorted())
    }
}
