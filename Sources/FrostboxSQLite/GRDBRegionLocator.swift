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
            var regions: [GeoBox: VerificationRegion] = [:]
            let nearBoxes = try db.cachedStatement(
                sql: """
                    SELECT p.latitude, p.longitude, p.country_code, p.admin1_code FROM place_name_box b JOIN place p ON p.id = b.place_id
                    WHERE b.box = ?
                    """)
            let nearCells = try db.cachedStatement(
                sql: """
                    SELECT p.latitude, p.longitude, p.country_code, p.admin1_code FROM place_name_cell c JOIN place p ON p.id = c.place_id
                    WHERE c.cell = ?
                    """)
            for box in boxes {
                var best: (distance: Double, region: VerificationRegion)?
                func consider(_ rows: RowCursor) throws {
                    while let row = try rows.next() {
                        let distance = Self.distance(box, latitude: row[0], longitude: row[1])
                        if best.map({ distance < $0.distance }) ?? true {
                            best = (distance, VerificationRegion(countryCode: row[2], admin1Code: row[3]))
                        }
                    }
                }
                for dy in -2...2 {
                    for dx in -2...2 {
                        let near = GeoBox(latitudeIndex: box.latitudeIndex + dy, longitudeIndex: box.longitudeIndex + dx)
                        try consider(try Row.fetchCursor(nearBoxes, arguments: [near.key]))
                    }
                }
                if best == nil {
                    let row = PlaceLevels.cellRow(latitude: box.latitude)
                    let column = PlaceLevels.cellColumn(longitude: box.longitude)
                    for dy in -1...1 where (-90...89).contains(row + dy) {
                        for dx in -1...1 {
                            let wrapped = ((column + dx + 180) % 360 + 360) % 360 - 180
                            try consider(try Row.fetchCursor(nearCells, arguments: [PlaceLevels.cellKey(row: row + dy, column: wrapped)]))
                        }
                    }
                }
                if let best { regions[box] = best.region }
            }
            return regions
        }
    }

    /// Squared distance in degrees, longitude shrunk by the latitude's cosine.
    static func distance(_ box: GeoBox, latitude: Double, longitude: Double) -> Double {
        let dy = latitude - box.latitude
        let dx = GeoBox.longitudeDistance(longitude, box.longitude) * cos(box.latitude * .pi / 180)
        return dy * dy + dx * dx
    }
}
