import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxPlaceImport
import FrostboxSQLite
import GRDB
import Logging
import Testing

/// A day of GeoNames changes applied to a database must leave exactly what a full import of
/// the day's end state builds: same places, same alternate names, same name index rows.
@Suite("Daily updates: applied in place, equal to a full re-import of the end state")
struct PlaceUpdateTests {
    let temporary: TemporaryDirectory
    let logger = Logger(label: "test")

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-updates")
    }

    func write(_ name: String, _ lines: [String]) throws -> String {
        let url = temporary.url.appendingPathComponent(name)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: url)
        return url.path
    }

    static var extractLines: [String] {
        get throws {
            try String(contentsOfFile: PlaceImportTests.extractPath, encoding: .utf8).split(separator: "\n").map(String.init)
        }
    }

    static func id(_ line: String) -> Int64 { Int64(line.prefix { $0 != "\t" })! }

    /// `line` with some of its 19 columns replaced.
    static func edit(_ line: String, _ changes: [Int: String]) -> String {
        var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        for (column, value) in changes { fields[column] = value }
        return fields.joined(separator: "\t")
    }

    static func alternate(_ id: Int64, _ place: Int64, _ language: String, _ name: String, preferred: Bool = false) -> String {
        "\(id)\t\(place)\t\(language)\t\(name)\t\(preferred ? "1" : "")\t\t\t\t\t"
    }

    // Base: the extract with a few alternate names.
    static let baseAlternates = [
        alternate(1, 658225, "iata", "HEL"),
        alternate(2, 658225, "sv", "Helsingfors", preferred: true),
        alternate(3, 660158, "sv", "Esbo", preferred: true),
        alternate(4, 633679, "sv", "Åbo", preferred: true),
        alternate(5, 634963, "sv", "Tammerfors"),
        alternate(6, 2673730, "fi", "Tukholma"),
    ]

    /// The day: Espoo grows a population tier, Vantaa moves to another box and is renamed,
    /// Oslo is deleted (and one unknown id), a new place appears; alternate names added (one
    /// for Turku, which is not otherwise modified), changed, deleted (and one unknown id),
    /// one for a place that does not exist.
    struct Day {
        var modifications: [String] = []
        var deletes: [String] = []
        var alternateModifications: [String] = []
        var alternateDeletes: [String] = []
    }

    static func day() throws -> Day {
        let lines = try extractLines
        let espoo = lines.first { id($0) == 660158 }!
        let vantaa = lines.first { id($0) == 632453 }!
        let helsinki = lines.first { id($0) == 658225 }!
        return Day(
            modifications: [
                edit(espoo, [14: "2560000", 18: "2026-11-23"]),
                edit(vantaa, [1: "Vanda Stad", 2: "Vanda Stad", 3: "Vantaa,Vanda", 4: "60.41", 5: "25.21", 18: "2026-11-23"]),
                edit(helsinki, [0: "99000001", 1: "Frostby", 2: "Frostby", 3: "", 4: "60.30", 5: "24.90", 14: "1500"]),
            ],
            deletes: ["3143244\tOslo\tduplicate", "98765432\tNowhere\tnever existed"],
            alternateModifications: [
                alternate(7, 660158, "fi", "Espoon kaupunki"),
                alternate(3, 660158, "sv", "Esbo stad", preferred: true),
                alternate(8, 99000001, "fi", "Pakkaskylä", preferred: true),
                alternate(9, 660158, "iata", "ESP"),
                alternate(10, 424242424, "fi", "Ei ole"),
                alternate(11, 633679, "fi", "Turun kaupunki"),
            ],
            alternateDeletes: ["5\t634963\tTammerfors\twrong", "999999\t1\tx\tunknown"])
    }

    /// The end state of base + day, as full files.
    static func endState(_ day: Day) throws -> (dump: [String], alternates: [String]) {
        var places: [Int64: String] = [:]
        var order: [Int64] = []
        for line in try extractLines + day.modifications {
            if places[id(line)] == nil { order.append(id(line)) }
            places[id(line)] = line
        }
        let deleted = Set(day.deletes.map(id))
        let dump = order.filter { !deleted.contains($0) }.map { places[$0]! }
        var alternates: [Int64: String] = [:]
        for line in baseAlternates + day.alternateModifications { alternates[id(line)] = line }
        for line in day.alternateDeletes { alternates[id(line)] = nil }
        let stored = Set(dump.map(id))
        let kept = alternates.keys.sorted().map { alternates[$0]! }.filter { line in
            stored.contains(Int64(line.split(separator: "\t")[1])!)
        }
        return (dump, kept)
    }

    func importFiles(_ paths: [String], into database: PlacesDatabase, options: PlaceImportOptions = PlaceImportOptions()) async throws -> PlaceImportSummary {
        try await PlaceImport.run(paths: paths, options: options, database: database, logger: logger)
    }

    func base(_ name: String) async throws -> PlacesDatabase {
        let database = try PlacesDatabase(path: temporary.path("\(name).sqlite"))
        let summary = try await importFiles([PlaceImportTests.extractPath, try write("alternateNamesV2.txt", Self.baseAlternates)], into: database)
        #expect(summary.result != nil, "a first import is a bulk import")
        return database
    }

    func dayFiles(_ day: Day, renamed: Bool = false) throws -> [String] {
        [
            try write(renamed ? "one.txt" : "modifications-2026-11-23.txt", day.modifications),
            try write(renamed ? "two.txt" : "deletes-2026-11-23.txt", day.deletes),
            try write(renamed ? "three.txt" : "alternateNamesModifications-2026-11-23.txt", day.alternateModifications),
            try write(renamed ? "four.txt" : "alternateNamesDeletes-2026-11-23.txt", day.alternateDeletes),
        ]
    }

    /// Every stored row of the place tables, as text, in key order.
    static func contents(_ database: PlacesDatabase) async throws -> [String: [String]] {
        try await database.pool.read { db in
            var tables: [String: [String]] = [:]
            for (table, order) in [
                ("place", "id"), ("alternate_name", "id"), ("place_name_box", "box, folded, place_id"),
                ("place_name_cell", "cell, folded, place_id"), ("place_name_tier", "tier, folded, place_id"),
                ("admin1", "code"), ("country", "code"),
            ] {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)").map(\.description)
            }
            return tables
        }
    }

    @Test("a day's four files, recognised by name, are applied in place and equal a full import of the end state; twice changes nothing")
    func dayEqualsFullImport() async throws {
        let day = try Self.day()
        let end = try Self.endState(day)
        let reference = try PlacesDatabase(path: temporary.path("reference.sqlite"))
        _ = try await importFiles([try write("end.txt", end.dump), try write("alternateNamesV2-end.txt", end.alternates)], into: reference)
        let expected = try await Self.contents(reference)
        #expect(expected["place"]?.count == 2305, "one deleted, one added")

        let updated = try await base("updated")
        let summary = try await importFiles(try dayFiles(day), into: updated)
        #expect(summary.result == nil, "applied in place, not rebuilt")
        let update = try #require(summary.update)
        #expect(update.placesWritten == 3)
        #expect(update.placesReplaced == 2)
        #expect(update.placesDeleted == 1)
        #expect(update.unknownPlaceDeletes == 1)
        #expect(update.alternatesWritten == 5)
        #expect(update.alternatesOfUnknownPlaces == 1)
        #expect(update.alternatesDeleted == 1)
        #expect(update.unknownAlternateDeletes == 1)
        #expect(summary.text.contains("deletes of unknown ids 1"))
        let after = try await Self.contents(updated)
        for table in expected.keys.sorted() {
            #expect(after[table] == expected[table], "\(table)")
        }

        let again = try #require(try await importFiles(try dayFiles(day), into: updated).update)
        #expect(again.placesReindexed == 0)
        #expect(again.nameRowsAdded == 0 && again.nameRowsRemoved == 0)
        #expect(again.placesDeleted == 0 && again.unknownPlaceDeletes == 2)
        #expect(try await Self.contents(updated) == expected)
    }

    @Test("a quiet day's empty update files change nothing and are not an error; other empty files still are")
    func quietDay() async throws {
        let database = try await base("quiet")
        let before = try await Self.contents(database)
        let summary = try await importFiles(try dayFiles(Day()), into: database)
        #expect(summary.update?.placesWritten == 0)
        #expect(try await Self.contents(database) == before)
        await #expect(throws: PlaceImportError.self) {
            _ = try await importFiles([try write("empty.txt", [])], into: database)
        }
    }

    @Test("renamed day files are recognised by content; the same files through the bulk path end the same")
    func renamedAndBulk() async throws {
        let day = try Self.day()
        let end = try Self.endState(day)
        let reference = try PlacesDatabase(path: temporary.path("reference.sqlite"))
        _ = try await importFiles([try write("end.txt", end.dump), try write("alternateNamesV2-end.txt", end.alternates)], into: reference)
        let expected = try await Self.contents(reference)

        let renamed = try await base("renamed")
        _ = try await importFiles(try dayFiles(day, renamed: true), into: renamed)
        #expect(try await Self.contents(renamed) == expected)

        // Forced through the bulk import: modifications and alternate names rebuild the index
        // (stored places whose alternate names changed are re-indexed), deletes go in place.
        let bulk = try await base("bulk")
        var options = PlaceImportOptions()
        options.incrementalLimitBytes = 0
        let summary = try await importFiles(try dayFiles(day), into: bulk, options: options)
        #expect(summary.result != nil)
        #expect(summary.reindexed == 1, "Turku gained an alternate name without being in the modifications")
        #expect(try await Self.contents(bulk) == expected)
    }

    @Test("searches answer the new state: codes are not names, names by language, the deleted place gone")
    func searchesAfterUpdate() async throws {
        let database = try await base("search")
        let index = GRDBPlaceIndex(database: database)
        let nearHelsinki = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
        let hel = try await index.search(try PlaceQuery(text: "hel", near: nearHelsinki))
        #expect(hel.first?.place.id == 658225)
        #expect(hel.first?.matchedName == "Helsinki")
        #expect(try await index.search(try PlaceQuery(text: "hel", near: nearHelsinki)).allSatisfy { $0.matchedName != "HEL" })
        let swedish = try await index.search(try PlaceQuery(text: "esp", near: nearHelsinki, languages: ["sv"]))
        #expect(swedish.first?.displayName == "Esbo")
        #expect(swedish.first?.matchedName == "Espoo")

        _ = try await importFiles(try dayFiles(try Self.day()), into: database)
        #expect(try await index.search(try PlaceQuery(text: "oslo")).isEmpty)
        let frost = try await index.search(try PlaceQuery(text: "pakkas", near: nearHelsinki, languages: ["fi"]))
        #expect(frost.first?.place.id == 99000001)
        #expect(frost.first?.displayName == "Pakkaskylä")
        let esbo = try await index.search(try PlaceQuery(text: "esbo", near: nearHelsinki, languages: ["sv-FI"]))
        #expect(esbo.first?.displayName == "Esbo stad")
        #expect(try await index.search(try PlaceQuery(text: "esp", near: nearHelsinki)).allSatisfy { $0.matchedName != "ESP" })
    }
}
