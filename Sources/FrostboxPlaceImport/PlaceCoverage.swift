import FrostboxBundledPlaces
import FrostboxSQLite

/// What the stored places cover, said to someone searching them: a search for `new york` over
/// the bundled Nordic extract finds nothing, and the answer says why and how to import the world.
public enum PlaceCoverage {
    /// How to import every town of the world (GeoNames' `cities1000`, CC BY 4.0).
    public static let importTheWorld =
        "to search the world, import GeoNames: download https://download.geonames.org/export/dump/cities1000.zip "
        + "and run `frostbox import geonames cities1000.zip` (README: Importing GeoNames)"

    /// A hint when the places file holds no place, or only the bundled extract's (as many
    /// places at most, all in its countries); nil when it holds more.
    public static func hint(_ database: PlacesDatabase) async throws -> String? {
        let count = try await database.placeCount()
        if count == 0 { return "no places are stored; \(importTheWorld)" }
        guard count <= BundledPlaces.placeCount, try await database.holdsOnly(countries: Set(BundledPlaces.countries.keys)) else { return nil }
        let names = BundledPlaces.countries.values.sorted()
        let countries = names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        return "places cover only the bundled Nordic extract (\(BundledPlaces.placeCount) towns in \(countries)); \(importTheWorld)"
    }
}
