import FrostboxCore
import FrostboxDoubles
import Testing

@testable import FrostboxSQLite

/// Issue #48: a box's region for the scores is the country and first-level division of the
/// place nearest it among those named within two boxes, else among the settlements of its
/// 1° cell and those around it.
@Suite("Regions of boxes from the places file")
struct GRDBRegionLocatorTests {
    static func place(_ id: Int64, _ name: String, _ lat: Double, _ lon: Double, country: String, admin1: String, featureClass: String = "P") -> Place {
        Place(
            id: id, name: name, asciiName: name, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), featureClass: featureClass,
            featureCode: featureClass == "P" ? "PPL" : "LK", countryCode: country, admin1Code: admin1, timezone: "Europe/Helsinki")
    }

    @Test("nearest named place within two boxes; else a settlement of the cell or its neighbours; none: left out")
    func regions() async throws {
        let directory = try TemporaryDirectory()
        let database = try PlacesDatabase(path: directory.databasePath)
        let importer = GRDBPlaceImporter(database: database, replace: false)
        try importer.begin()
        var batch = PlaceBatch()
        for place in [
            Self.place(1, "Helsinki", 60.17, 24.94, country: "FI", admin1: "18"),
            Self.place(2, "Porvoo", 60.39, 25.66, country: "FI", admin1: "16"),
            // A lake (not a settlement) in Åland: named in its box, so a box next to it is Åland's.
            Self.place(3, "Lake", 60.20, 19.95, country: "FI", admin1: "01", featureClass: "H"),
        ] {
            batch.append(place)
        }
        try importer.add(batch)
        _ = try importer.finish()
        let locator = GRDBRegionLocator(database: database)
        let nearHelsinki = Coordinate(uncheckedLatitude: 60.22, longitude: 24.99).box
        let nearPorvoo = Coordinate(uncheckedLatitude: 60.36, longitude: 25.60).box
        let nextToLake = Coordinate(uncheckedLatitude: 60.25, longitude: 20.0).box
        // 40 km north of Helsinki: no name within two boxes; Helsinki is a settlement of the same 1° cell.
        let inland = Coordinate(uncheckedLatitude: 60.55, longitude: 24.9).box
        let ocean = Coordinate(uncheckedLatitude: 0.1, longitude: -30.1).box
        let regions = try await locator.regions(of: [nearHelsinki, nearPorvoo, nextToLake, inland, ocean])
        #expect(regions[nearHelsinki] == VerificationRegion(countryCode: "FI", admin1Code: "18"))
        #expect(regions[nearPorvoo] == VerificationRegion(countryCode: "FI", admin1Code: "16"))
        #expect(regions[nextToLake] == VerificationRegion(countryCode: "FI", admin1Code: "01"))
        #expect(regions[inland] == VerificationRegion(countryCode: "FI", admin1Code: "18"))
        #expect(regions[ocean] == nil)
        #expect(try await locator.regions(of: []).isEmpty)
    }
}
