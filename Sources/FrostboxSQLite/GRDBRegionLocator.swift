import Foundation
import FrostboxCore
import GRDB

/// Where boxes lie, from the places file (issue #48, scores per region): the country and
/// first-level division of the place nearest a box's centre among those named within two
/// boxes of it (about 11 km), else among the settlements of its 1° cell and the cells
/// around it; no place there leaves the box `unknown`.
public struct GRDBRegionLocator: RegionLocator {
    let database: @Sendable () -> PlacesDatabase

    public init(database: PlacesDatabase) {
        self.database = { database }
    }

    /// Locates in whichever places file `places` holds when asked.
    public init(places: PlacesInUse) {
        self.database = { places.database }
    }

    public func regions(of boxes: [GeoBox]) async throws -> [GeoBox: VerificationRegion] {
        let boxes = Array(Set(boxes))
        guard !boxes.isEmpty else { return [:] }
        return try await database().pool.read { db in
            // Each place once, however many name forms it has in the box or cell.
            let inBox = try db.cachedStatement(
                sql: """
                    SELECT latitude, longitude, country_code, admin1_code FROM place
                    WHERE id IN (SELECT place_id FROM place_name_box WHERE box = ?)
                    """)
            let inCell = try db.cachedStatement(
                sql: """
                    SELECT latitude, longitude, country_code, admin1_code FROM place
                    WHERE id IN (SELECT place_id FROM place_name_cell WHERE cell = ?)
                    """)
            // Neighbouring boxes share their neighbours: each box and cell is read once a call.
            var boxPlaces: [Int64: [NearPlace]] = [:]
            var cellPlaces: [Int64: [NearPlace]] = [:]
            func places(_ statement: Statement, _ key: Int64, in cache: inout [Int64: [NearPlace]]) throws -> [NearPlace] {
                if let known = cache[key] { return known }
                let found = try Row.fetchAll(statement, arguments: [key]).map {
                    NearPlace(latitude: $0[0], longitude: $0[1], region: VerificationRegion(countryCode: $0[2], admin1Code: $0[3]))
                }
                cache[key] = found
                return found
            }
            var regions: [GeoBox: VerificationRegion] = [:]
            for box in boxes {
                var near: [NearPlace] = []
                for dy in -2...2 {
                    for dx in -2...2 {
                        let key = GeoBox(latitudeIndex: box.latitudeIndex + dy, longitudeIndex: box.longitudeIndex + dx).key
                        near += try places(inBox, key, in: &boxPlaces)
                    }
                }
                if near.isEmpty {
                    let row = PlaceLevels.cellRow(latitude: box.latitude)
                    let column = PlaceLevels.cellColumn(longitude: box.longitude)
                    for dy in -1...1 where (-90...89).contains(row + dy) {
                        for dx in -1...1 {
                            let key = PlaceLevels.cellKey(row: row + dy, column: PlaceLevels.wrapColumn(column + dx))
                            near += try places(inCell, key, in: &cellPlaces)
                        }
                    }
                }
                regions[box] = near.min { Self.distance(box, $0) < Self.distance(box, $1) }?.region
            }
            return regions
        }
    }

    /// A place near a box, as far as its region goes.
    struct NearPlace {
        var latitude: Double
        var longitude: Double
        var region: VerificationRegion
    }

    /// Squared distance in degrees, longitude shrunk by the latitude's cosine.
    static func distance(_ box: GeoBox, _ place: NearPlace) -> Double {
        let dy = place.latitude - box.latitude
        let dx = GeoBox.longitudeDistance(place.longitude, box.longitude) * cos(box.latitude * .pi / 180)
        return dy * dy + dx * dx
    }
}
