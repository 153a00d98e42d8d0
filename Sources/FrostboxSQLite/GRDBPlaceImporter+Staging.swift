import FrostboxCore
import GRDB

/// The small tables an import stages beside the places: divisions, countries and alternate
/// names, written to temporary tables and moved into the live ones by `finish()`.
extension GRDBPlaceImporter {
    /// Stages first-level division names (replacing by code when finished).
    public func addAdmin1(_ divisions: [Admin1Division]) throws {
        try database.pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let statement = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO temp.import_admin1 (code, name, ascii_name, geonameid) VALUES (?, ?, ?, ?)")
                for division in divisions {
                    try statement.execute(arguments: [division.code, division.name, division.asciiName, division.geonameID])
                }
                return .commit
            }
        }
        admin1Count += divisions.count
    }

    /// Stages alternate names (replacing by alternateNameId when finished; names of places
    /// not stored after the import are left out). The names they give places must already
    /// be in the places' batches (`Place.alternates`).
    public func addAlternateNames(_ alternates: [AlternateName]) throws {
        try database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = OFF")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            try db.inTransaction {
                let statement = try RawStatement(db, sql: PlaceRows.insertAlternate(into: "temp.import_alternate_name"))
                for alternate in alternates {
                    PlaceRows.bind(alternate, to: statement)
                    try statement.execute()
                }
                return .commit
            }
        }
    }

    /// Stages countries (replacing by code when finished).
    public func addCountries(_ countries: [CountryInfo]) throws {
        try database.pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO temp.import_country (code, name, capital, population, continent, geonameid)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """)
                for country in countries {
                    try statement.execute(arguments: [
                        country.code, country.name, country.capital, country.population, country.continent, country.geonameID,
                    ])
                }
                return .commit
            }
        }
        countryCount += countries.count
    }
}
