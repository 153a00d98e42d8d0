import Foundation
import FrostboxCore

/// The 1° cells that may hold points within a radius, nearest first.
enum CellCover {
    struct Cell {
        let key: Int64
        let distance: Double
    }

    static let kilometresPerDegree = 111.195

    static func cells(around point: Coordinate, radiusKilometres: Double) -> [Cell] {
        let dLat = radiusKilometres / kilometresPerDegree
        let south = max(point.latitude - dLat, -90)
        let north = min(point.latitude + dLat, 90)
        let rows = PlaceLevels.cellRow(latitude: south)...PlaceLevels.cellRow(latitude: north)
        let widest = max(abs(south), abs(north))
        let cosine = widest >= 89.999 ? 0 : cos(widest * .pi / 180)
        let dLon = cosine <= 0 ? 360 : dLat / cosine
        var columns: [Int] = []
        if dLon >= 180 {
            columns = Array(-180...179)
        } else {
            let west = Int((point.longitude - dLon).rounded(.down))
            let east = Int((point.longitude + dLon).rounded(.down))
            var seen = Set<Int>()
            for column in west...east where seen.insert(PlaceLevels.wrapColumn(column)).inserted {
                columns.append(PlaceLevels.wrapColumn(column))
            }
        }
        var cells: [Cell] = []
        cells.reserveCapacity(rows.count * columns.count)
        for row in rows {
            for column in columns {
                // The bounding box of the circle is the cover; the distance only orders it.
                let distance = orderingDistance(from: point, row: row, column: column)
                cells.append(Cell(key: PlaceLevels.cellKey(row: row, column: column), distance: distance))
            }
        }
        return cells.sorted { $0.distance < $1.distance || ($0.distance == $1.distance && $0.key < $1.key) }
    }

    /// Distance from the point to the cell's point nearest in latitude and longitude
    /// separately: good enough to visit cells nearest first.
    static func orderingDistance(from point: Coordinate, row: Int, column: Int) -> Double {
        let latitude = min(max(point.latitude, Double(row)), Double(row) + 1)
        let west = Double(column)
        let longitude: Double
        if GeoBox.longitudeDistance(point.longitude, west + 0.5) <= 0.5 {
            longitude = point.longitude
        } else {
            let toWest = GeoBox.longitudeDistance(point.longitude, west)
            let toEast = GeoBox.longitudeDistance(point.longitude, west + 1)
            longitude = toWest < toEast ? west : west + 1
        }
        let nearest = Coordinate(uncheckedLatitude: latitude, longitude: longitude > 180 ? longitude - 360 : longitude)
        return point.distanceKilometres(to: nearest)
    }
}
