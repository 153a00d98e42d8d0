import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxGeoNames
import GRDB
import Testing

@testable import FrostboxSQLite

@Suite("Places in SQLite: import, re-import, interrupted import, search")
struct GRDBPlaceIndexTests {
    let directory: TemporaryDirectory
    let database: PlacesDatabase
    let index: GRDBPlaceIndex

    init() throws {
        directory = try TemporaryDirectory()
        database = try PlacesDatabase(path: directory.databasePath)
        index = GRDBPlaceIndex(database: database)
    }

    static let vuosaari = Coordinate(uncheckedLatitude: 60.21, longitude: 25.14)

    static func extract() throws -> [Place] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("data/geonames/nordic-cities1000.txt"), encoding: .utf8)
        return try text.split(separator: "\n").map { try GeoNamesRow.parse(String($0)) }
    }

    @discardableResult
    func load(
        _ places: [Place], replace: Bool = false, admin1: [Admin1Division] = [], countries: [CountryInfo] = [],
        batchSize: Int = 500, runBytes: Int = 192 << 20, into database: PlacesDatabase? = nil
    ) throws -> PlaceImportResult {
        let importer = GRDBPlaceImporter(database: database ?? self.database, replace: replace, runBytes: runBytes)
        try importer.begin()
        var start = 0
        while start < places.count {
            var batch = PlaceBatch()
            for place in places[start..<min(start + batchSize, places.count)] { batch.append(place) }
            try importer.add(batch)
            start += batchSize
        }
        if !admin1.isEmpty { try importer.addAdmin1(admin1) }
        if !countries.isEmpty { try importer.addCountries(countries) }
        return try importer.finish()
    }

    func search(_ text: String, near: Coordinate? = vuosaari, limit: Int = 10, radius: Double = 200) async throws -> [PlaceMatch] {
        try await index.search(try PlaceQuery(text: text, near: near, limit: limit, radiusKilometres: radius))
    }

    static func place(
        _ id: Int64, _ name: String, _ lat: Double, _ lon: Double, population: Int64 = 0, featureClass: String = "P", alternates: String = ""
    ) -> Place {
        Place(
            id: id, name: name, asciiName: NameFolding.fold(name), alternateNames: alternates,
            coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), featureClass: featureClass,
            featureCode: featureClass == "P" ? "PPL" : "LK", countryCode: "FI", admin1Code: "01", population: population,
            timezone: "Europe/Helsinki")
    }

    func count(_ table: String) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    // MARK: Import

    @Test("importing the shared extract stores every place and indexes every distinct folded name")
    func importExtract() async throws {
        let places = try Self.extract()
        let result = try load(places)
        #expect(result.imported == 2305)
        #expect(result.total == 2305)
        #expect(result.replaced == 0)
        let expectedNames = places.reduce(0) { $0 + $1.foldedNames.count }
        #expect(result.names == expectedNames)
        #expect(try await count("place_name_box") == expectedNames)
        // Every extract place is settlement-like, so the coarse levels hold every name too.
        #expect(try await count("place_name_cell") == expectedNames)
        #expect(try await count("place_name_tier") == expectedNames)
        #expect(try await database.isEmpty() == false)
        #expect(try await database.placeCount() == 2305)
        // No staging or next tables are left behind.
        let leftovers = try await database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE '%_next' UNION ALL SELECT name FROM sqlite_temp_master")
        }
        #expect(leftovers.isEmpty)
    }

    @Test("re-importing replaces by geonameid: no duplicates, old names gone, other places kept")
    func reimportReplaces() async throws {
        try load([Self.place(1, "Alpha", 60.2, 25.1), Self.place(2, "Beta", 60.2, 25.1), Self.place(3, "Gamma", 60.2, 25.1)])
        let result = try load([Self.place(2, "Bravo", 60.2, 25.1, population: 50), Self.place(4, "Delta", 60.2, 25.1)])
        #expect(result.imported == 2)
        #expect(result.replaced == 1)
        #expect(result.total == 4)
        #expect(try await search("beta").isEmpty)
        #expect(try await search("bravo").map(\.place.id) == [2])
        #expect(try await search("alpha").map(\.place.id) == [1])
        #expect(try await search("delta").map(\.place.id) == [4])
        #expect(try await count("place") == 4)
        // The same file twice changes nothing.
        let extract = try Self.extract()
        try load(extract, replace: true)
        let again = try load(extract)
        #expect(again.total == 2305)
        #expect(again.replaced == 2305)
        #expect(try await count("place_name_box") == extract.reduce(0) { $0 + $1.foldedNames.count })
    }

    /// Every row of the three name levels, in primary-key order.
    static func nameRows(_ database: PlacesDatabase) async throws -> [String] {
        try await database.pool.read { db in
            try ["box", "cell", "tier"].flatMap { level in
                try Row.fetchAll(db, sql: "SELECT \(level), folded, place_id FROM place_name_\(level) ORDER BY 1, 2, 3").map { row in
                    "\(level) \(row[0] as Int64) \(row[1] as String) \(row[2] as Int64)"
                }
            }
        }
    }

    @Test("names sorted in many small runs and merged give exactly the tables of one run, fresh and on re-import")
    func manyRuns() async throws {
        let extract = try Self.extract()
        let other = try PlacesDatabase(path: directory.url.appendingPathComponent("other.sqlite").path)
        // 4 KiB runs: the extract's ~12,000 name rows spread over more than a hundred run files.
        try load(extract, runBytes: 4096)
        try load(extract, into: other)
        let manyRuns = try await Self.nameRows(database)
        let expectedBox = Set(extract.flatMap { place in place.foldedNames.map { "box \(place.box.key) \($0) \(place.id)" } })
        #expect(Set(manyRuns.filter { $0.hasPrefix("box ") }) == expectedBox)
        #expect(manyRuns == (try await Self.nameRows(other)))

        // Re-importing half the extract with other names merges the new runs with the stored
        // names of the other half.
        let renamed = extract.prefix(1000).map { place in
            var place = place
            place.name = "Renamed \(place.id)"
            place.alternateNames = ""
            return place
        }
        try load(Array(renamed), runBytes: 4096)
        try load(Array(renamed), into: other)
        let merged = try await Self.nameRows(database)
        #expect(merged == (try await Self.nameRows(other)))
        #expect(try await search("renamed \(renamed[0].id)").map(\.place.id) == [renamed[0].id])
        // Run files are gone once the import finished.
        #expect(!FileManager.default.fileExists(atPath: directory.databasePath + ".import-runs"))
    }

    @Test("--replace drops every stored place, admin1 and country first")
    func replaceAll() async throws {
        try load(
            [Self.place(1, "Alpha", 60.2, 25.1)], admin1: [Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: nil)])
        let result = try load([Self.place(2, "Beta", 60.2, 25.1)], replace: true)
        #expect(result.total == 1)
        #expect(result.admin1 == 0)
        #expect(try await search("alpha").isEmpty)
    }

    @Test("a geonameid twice in one import keeps its last row and only that row's names")
    func duplicateWithinImport() async throws {
        let result = try load([Self.place(7, "Oldname", 60.2, 25.1), Self.place(8, "Other", 60.2, 25.1), Self.place(7, "Newname", 60.2, 25.1)], batchSize: 2)
        #expect(result.imported == 2)
        #expect(try await search("oldname").isEmpty)
        #expect(try await search("newname").map(\.place.id) == [7])
        #expect(try await count("place_name_box") == 2)
    }

    @Test("an import stopped before the swap leaves the previous places intact, and a rerun completes")
    func interruptedImport() async throws {
        let extract = try Self.extract()
        try load(Array(extract.prefix(100)))
        let before = try await search("hel")

        // Killed while reading: staged rows exist, nothing swapped.
        let first = GRDBPlaceImporter(database: database)
        try first.begin()
        var batch = PlaceBatch()
        for place in extract { batch.append(place) }
        try first.add(batch)
        #expect(try await count("place") == 100)
        #expect(try await search("hel").map(\.place.id) == before.map(\.place.id))

        // Killed after the next tables were built but before the swap committed.
        nonisolated(unsafe) let runs = try first.sortedRuns()
        let pool = database.pool
        try await pool.writeWithoutTransaction { db in
            _ = try GRDBPlaceImporter.buildNextTables(db, pool: pool, runs: runs, replaceAll: false, latestSeq: [:]) { _ in }
        }
        #expect(try await count("place") == 100)
        #expect(try await count("place_next") == 2305)

        // The process dies: a new connection sees the old tables; the rerun clears leftovers.
        let reopened = try PlacesDatabase(path: directory.databasePath)
        #expect(try await reopened.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") } == 100)
        let rerun = GRDBPlaceImporter(database: reopened)
        try rerun.begin()
        try rerun.add(batch)
        let result = try rerun.finish()
        #expect(result.total == 2305)
        #expect(try await GRDBPlaceIndex(database: reopened).search(try PlaceQuery(text: "helsinki", near: Self.vuosaari)).first?.place.id == 658225)
    }

    @Test("admin1 and country names label results")
    func labels() async throws {
        try load(
            try Self.extract(), admin1: [Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830709)],
            countries: [CountryInfo(code: "FI", name: "Finland")])
        let espoo = try #require(try await search("espoo").first)
        #expect(espoo.place.name == "Espoo")
        #expect(espoo.admin1Name == "Uusimaa")
        #expect(espoo.countryName == "Finland")
        let tallinn = try #require(try await search("tallinn").first)
        #expect(tallinn.admin1Name == nil)
        #expect(tallinn.countryName == nil)
    }

    // MARK: Search

    @Test("'hel' near Vuosaari: Helsinki first; one result per place with the best-matching form")
    func helNearVuosaari() async throws {
        try load(try Self.extract() + [Self.place(90_000_001, "Helgeby", 60.225, 25.19, population: 200)])
        let results = try await search("hel")
        #expect(results.first?.place.name == "Helsinki")
        #expect(results.map(\.place.id).contains(90_000_001))
        #expect(Set(results.map(\.place.id)).count == results.count)
        let helsinki = try #require(results.first)
        #expect(helsinki.matchedName == "HEL")
        #expect(helsinki.isExact)
        #expect((10...16).contains(helsinki.distanceKilometres ?? 0))
        // Without the exact IATA-code form, the prefix blend still puts Helsinki first.
        let prefix = try await search("hels")
        #expect(prefix.first?.place.name == "Helsinki")
        #expect(prefix.first?.matchedName == "Helsinki")
    }

    @Test(
        "diacritic-free and partial queries find their places",
        arguments: [
            ("jyvas", "Jyväskylä", 62.24, 25.75), ("hameenl", "Hämeenlinna", 61.0, 24.46), ("goteb", "Göteborg", 57.7, 11.97),
            ("malmo", "Malmö", 55.6, 13.0), ("tromso", "Tromsø", 69.65, 18.96), ("reykjav", "Reykjavík", 64.14, -21.9),
            ("paernu", "Pärnu", 58.38, 24.5),
        ])
    func diacriticFree(query: String, name: String, lat: Double, lon: Double) async throws {
        try load(try Self.extract())
        let near = try await search(query, near: Coordinate(uncheckedLatitude: lat + 0.3, longitude: lon + 0.3))
        #expect(near.first?.place.name == name, "\(near.map(\.place.name))")
        let worldwide = try await search(query, near: nil)
        #expect(worldwide.map(\.place.name).contains(name), "\(worldwide.map(\.place.name))")
    }

    @Test("non-Latin names match themselves")
    func cyrillic() async throws {
        try load(try Self.extract())
        let results = try await search("Хельс", near: nil)
        #expect(results.first?.place.name == "Helsinki")
        #expect(results.first?.matchedName == "Хельсинки")
    }

    @Test("exact name matches rank above prefix matches")
    func exactFirst() async throws {
        try load([
            Self.place(1, "Kallio", 60.5, 25.5, population: 0),
            Self.place(2, "Kalliola", 60.21, 25.14, population: 50_000),
        ])
        #expect(try await search("kallio").map(\.place.id) == [1, 2])
    }

    @Test("worldwide search ranks by population, own names before alternate names")
    func worldwide() async throws {
        try load(try Self.extract())
        let results = try await search("s", near: nil, limit: 5)
        #expect(results.count == 5)
        #expect(results.map(\.nameKind) == results.map(\.nameKind).sorted())
        for kind in [PlaceNameKind.own, .alternate] {
            let populations = results.filter { $0.nameKind == kind }.map(\.place.population)
            #expect(populations == populations.sorted(by: >))
        }
        #expect(results.first?.place.name == "Stockholm")
        #expect(results.allSatisfy { $0.distanceKilometres == nil })
    }

    @Test("the radius bounds what counts as nearby; places beyond it complete the list after the nearby ones")
    func radius() async throws {
        try load([Self.place(1, "Near", 60.211, 25.141), Self.place(2, "Nearby", 60.5, 25.14, population: 1_000_000)])
        let small = try await search("near", radius: 10)
        #expect(small.map(\.place.id) == [1, 2])
        #expect(small.map(\.isNearby) == [true, false])
        #expect(Set(try await search("near", radius: 100).map(\.place.id)) == [1, 2])
    }

    @Test("features that are not settlements are found near the point but not far away")
    func nonSettlements() async throws {
        try load([Self.place(1, "Lakeside Pond", 60.22, 25.16, featureClass: "H"), Self.place(2, "Lakewood Pond", 61.5, 25.14, featureClass: "H")])
        #expect(try await search("lake").map(\.place.id) == [1])
    }

    @Test("antimeridian: at longitude 179.99, places at −179.99 are found, and the other way round")
    func antimeridian() async throws {
        try load([
            Self.place(1, "Eastfield", -16.5, -179.99, population: 100),
            Self.place(2, "Westfield", -16.5, 179.99, population: 100),
            Self.place(3, "Farfield", -16.5, -175.5, population: 100),
        ])
        let fromEast = try await search("eastf", near: Coordinate(uncheckedLatitude: -16.5, longitude: 179.99))
        #expect(fromEast.map(\.place.id) == [1])
        #expect((fromEast.first?.distanceKilometres ?? 99) < 3)
        let fromWest = try await search("westf", near: Coordinate(uncheckedLatitude: -16.5, longitude: -179.99))
        #expect(fromWest.map(\.place.id) == [2])
        // Widening over 1° cells crosses the antimeridian too: Farfield lies 4.5° east of it.
        let wide = try await search("farf", near: Coordinate(uncheckedLatitude: -16.5, longitude: 179.5), radius: 700)
        #expect(wide.map(\.place.id) == [3])
        #expect((wide.first?.distanceKilometres ?? 0) < 600)
    }

    @Test("poles: searching at latitude ±89.99 works and finds polar places")
    func poles() async throws {
        try load([
            Self.place(1, "Polar Station", 89.95, 120, population: 10),
            Self.place(2, "South Pole Camp", -89.99, 0, population: 10),
            Self.place(3, "Polar Town", 85, 0, population: 10),
        ])
        let north = try await search("polar", near: Coordinate(uncheckedLatitude: 89.99, longitude: -60))
        #expect(north.map(\.place.id) == [1, 3])
        #expect(north.map(\.isNearby) == [true, false], "Polar Town, 555 km away, only completes the list")
        let farther = try await search("polar", near: Coordinate(uncheckedLatitude: 89.99, longitude: 0), radius: 1000)
        #expect(Set(farther.map(\.place.id)) == [1, 3])
        let south = try await search("south", near: Coordinate(uncheckedLatitude: -89.99, longitude: 179.99))
        #expect(south.map(\.place.id) == [2])
        let exactPole = try await search("south", near: Coordinate(uncheckedLatitude: -90, longitude: 0))
        #expect(exactPole.map(\.place.id) == [2])
    }

    @Test("an empty index answers nothing, not an error")
    func empty() async throws {
        #expect(try await search("hel").isEmpty)
        #expect(try await search("hel", near: nil).isEmpty)
        #expect(try await database.isEmpty())
    }

    @Test("the limit caps results and one-letter queries stay within the row budget")
    func limits() async throws {
        try load(try Self.extract())
        #expect(try await search("k", limit: 3).count == 3)
        #expect(try await search("k", limit: 50).count == 50)
        let small = GRDBPlaceIndex(database: database, maximumNameRows: 5)
        let capped = try await small.search(try PlaceQuery(text: "k", near: Self.vuosaari, limit: 50))
        // Five rows nearby, then five for the worldwide completion.
        #expect(capped.count <= 10)
        #expect(capped.filter(\.isNearby).count <= 5)
    }
}
