import FrostboxCore
import GRDB

/// The columns of the `place` and `alternate_name` tables and their mapping to core values,
/// in one place for the importer, the updater and the index.
enum PlaceRows {
    /// `place` columns in the order every statement here reads and binds them.
    static let placeColumns =
        "id, latitude, longitude, population, feature_class, feature_code, country_code, admin1_code, timezone, modified, name, ascii_name, alternate_names"
    /// `alternate_name` columns in the order every statement here reads and binds them.
    static let alternateColumns =
        "id, place_id, language, name, is_preferred, is_short, is_colloquial, is_historic, valid_from, valid_to"

    /// `INSERT OR REPLACE INTO table (placeColumns) VALUES (…)`.
    static func insertPlace(into table: String) -> String {
        "INSERT OR REPLACE INTO \(table) (\(placeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    }

    /// `INSERT OR REPLACE INTO table (alternateColumns) VALUES (…)`.
    static func insertAlternate(into table: String) -> String {
        "INSERT OR REPLACE INTO \(table) (\(alternateColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    }

    static func bind(_ place: Place, to statement: RawStatement) {
        statement.bind(1, place.id)
        statement.bind(2, place.coordinate.latitude)
        statement.bind(3, place.coordinate.longitude)
        statement.bind(4, place.population)
        statement.bind(5, place.featureClass)
        statement.bind(6, place.featureCode)
        statement.bind(7, place.countryCode)
        statement.bind(8, place.admin1Code)
        statement.bind(9, place.timezone)
        statement.bind(10, place.modified)
        statement.bind(11, place.name)
        statement.bind(12, place.asciiName)
        statement.bind(13, place.alternateNames)
    }

    static func bind(_ alternate: AlternateName, to statement: RawStatement) {
        statement.bind(1, alternate.id)
        statement.bind(2, alternate.placeID)
        statement.bind(3, alternate.language)
        statement.bind(4, alternate.name)
        statement.bind(5, Int64(alternate.isPreferred ? 1 : 0))
        statement.bind(6, Int64(alternate.isShort ? 1 : 0))
        statement.bind(7, Int64(alternate.isColloquial ? 1 : 0))
        statement.bind(8, Int64(alternate.isHistoric ? 1 : 0))
        statement.bind(9, alternate.from)
        statement.bind(10, alternate.to)
    }

    /// A place from a row whose first columns are `placeColumns`.
    static func place(_ row: Row, alternates: [AlternateName]) -> Place {
        Place(
            id: row[0], name: row[10], asciiName: row[11], alternateNames: row[12],
            coordinate: Coordinate(uncheckedLatitude: row[1], longitude: row[2]),
            featureClass: row[4], featureCode: row[5], countryCode: row[6], admin1Code: row[7],
            population: row[3], timezone: row[8], modified: row[9], alternates: alternates)
    }

    /// An alternate name from a row of `alternateColumns`.
    static func alternate(_ row: Row) -> AlternateName {
        AlternateName(
            id: row[0], placeID: row[1], language: row[2], name: row[3], isPreferred: row[4], isShort: row[5],
            isColloquial: row[6], isHistoric: row[7], from: row[8], to: row[9])
    }

    /// The alternate names of a place, by alternateNameId.
    static func alternates(_ db: Database, placeID: Int64) throws -> [AlternateName] {
        let statement = try db.cachedStatement(
            sql: "SELECT \(alternateColumns) FROM alternate_name WHERE place_id = ? ORDER BY id")
        return try Row.fetchAll(statement, arguments: [placeID]).map(alternate(_:))
    }
}

extension PlaceLevels {
    /// A place's keys in the three name levels; `cell` and `tier` only for settlement-like
    /// places (the coarse levels hold nothing else).
    static func keys(of place: Place) -> (box: Int64, cell: Int64?, tier: Int64?) {
        guard place.isSettlementLike else { return (place.box.key, nil, nil) }
        return (place.box.key, cellKey(place.coordinate), Int64(tier(population: place.population)))
    }
}
