import FrostboxCore

/// The keys of the three name levels of the place index.
///
/// - `box`: the 0.05° `GeoBox` key; every name of every place. Searched around the point
///   first (its neighbourhood, then rings 1 and 2).
/// - `cell`: 1° × 1° cells; names of settlement-like places (`Place.isSettlementLike`).
///   Searched outwards cell by cell, nearest first, up to the radius.
/// - `tier`: the number of decimal digits of the population, inverted so that larger
///   populations sort first (0 for ≥ 10^19, 18 for 1–9, 19 for unknown); names of
///   settlement-like places. Searched tier by tier for worldwide queries.
enum PlaceLevels {
    /// Number of 1° cells per row of latitude.
    static let cellsPerRow = 360

    /// The 1° cell row (floor of the latitude, 90° folded into 89°).
    static func cellRow(latitude: Double) -> Int {
        min(max(Int(latitude.rounded(.down)), -90), 89)
    }

    /// The 1° cell column (floor of the longitude, wrapped into −180...179).
    static func cellColumn(longitude: Double) -> Int {
        wrapColumn(Int(longitude.rounded(.down)))
    }

    static func wrapColumn(_ column: Int) -> Int {
        var wrapped = (column + 180) % cellsPerRow
        if wrapped < 0 { wrapped += cellsPerRow }
        return wrapped - 180
    }

    static func cellKey(row: Int, column: Int) -> Int64 {
        Int64(row + 90) * Int64(cellsPerRow) + Int64(wrapColumn(column) + 180)
    }

    static func cellKey(_ coordinate: Coordinate) -> Int64 {
        cellKey(row: cellRow(latitude: coordinate.latitude), column: cellColumn(longitude: coordinate.longitude))
    }

    /// Tier of a population: 19 − number of digits; 19 for 0.
    static func tier(population: Int64) -> Int {
        guard population > 0 else { return 19 }
        var digits = 0
        var rest = population
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return 19 - digits
    }
}
