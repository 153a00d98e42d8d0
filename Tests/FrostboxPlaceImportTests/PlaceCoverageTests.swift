import Foundation
import FrostboxBundledPlaces
import FrostboxDoubles
import FrostboxPlaceImport
import FrostboxSQLite
import Logging
import Testing

/// A search over the bundled Nordic extract alone says so, and how to import the world.
@Suite("What the stored places cover")
struct PlaceCoverageTests {
    static func row(_ id: Int, _ name: String, _ latitude: String, _ longitude: String, _ country: String) -> String {
        [
            "\(id)", name, name, "", latitude, longitude, "P", "PPL", country, "", "01", "", "", "", "100000", "", "16", "Europe/Helsinki", "2016-06-11",
        ].joined(separator: "\t")
    }

    @Test("no places, then the bundled extract: a hint naming the extract and how to import the world; more countries: none")
    func hints() async throws {
        let temporary = try TemporaryDirectory(prefix: "frostbox-coverage")
        let database = try PlacesDatabase(path: temporary.path("places.sqlite"))
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        #expect(try await PlaceCoverage.hint(database)?.hasPrefix("no places are stored") == true)

        await PlaceImport.seedIfEmpty(.bundled, database: database, logger: logger, temporaryDirectory: temporary.url)
        #expect(try await database.placeCount() == BundledPlaces.placeCount)
        let hint = try #require(try await PlaceCoverage.hint(database))
        #expect(hint.hasPrefix("places cover only the bundled Nordic extract (2305 towns in Denmark, Estonia, Finland, Iceland, Norway and Sweden)"))
        #expect(hint.contains("cities1000.zip") && hint.contains("frostbox import geonames"))

    }

    @Test("a few places in the extract's countries still get the hint; one place elsewhere ends it")
    func countries() async throws {
        let temporary = try TemporaryDirectory(prefix: "frostbox-coverage")
        let database = try PlacesDatabase(path: temporary.path("places.sqlite"))
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        func add(_ row: String) async throws {
            let path = temporary.path("rows-\(UUID().uuidString).txt")
            try Data((row + "\n").utf8).write(to: URL(fileURLWithPath: path))
            _ = try await PlaceImport.run(paths: [path], options: PlaceImportOptions(), database: database, logger: logger)
        }
        try await add(Self.row(660_158, "Espoo", "60.2052", "24.6522", "FI"))
        #expect(try await PlaceCoverage.hint(database)?.hasPrefix("places cover only the bundled Nordic extract") == true)
        try await add(Self.row(5_128_581, "New York City", "40.71427", "-74.00597", "US"))
        #expect(try await database.placeCount() == 2)
        #expect(try await PlaceCoverage.hint(database) == nil)
    }
}
