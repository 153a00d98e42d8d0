import FrostboxCore
import GRDB
import Synchronization

/// The places file's `RegionCatalog`, read once and again whenever the division or country
/// tables, or the alternate names, change (an import while serving): a fingerprint of a few
/// index lookups is checked per multi-word query instead of reading ~4,000 divisions.
/// Imports write these tables with `INSERT OR REPLACE` (new rowids) or after deleting them
/// all; the one change the fingerprint misses is a replacement with exactly as many rows
/// and no new alternate name, which keeps the old catalog until the next such change or
/// restart.
final class RegionCatalogCache: Sendable {
    struct Fingerprint: Hashable {
        let admin1Count: Int64
        let admin1LastRow: Int64
        let countryCount: Int64
        let countryLastRow: Int64
        let lastAlternateID: Int64
    }

    private let cached = Mutex<(Fingerprint, RegionCatalog)?>(nil)

    /// The catalog as of `db`'s snapshot.
    func catalog(_ db: Database) throws -> RegionCatalog {
        let fingerprint = try Self.fingerprint(db)
        if let entry = cached.withLock({ $0 }), entry.0 == fingerprint { return entry.1 }
        let catalog = try Self.read(db)
        cached.withLock { $0 = (fingerprint, catalog) }
        return catalog
    }

    static func fingerprint(_ db: Database) throws -> Fingerprint {
        let statement = try db.cachedStatement(
            sql: """
                SELECT (SELECT count(*) FROM admin1), (SELECT ifnull(max(rowid), 0) FROM admin1),
                       (SELECT count(*) FROM country), (SELECT ifnull(max(rowid), 0) FROM country),
                       (SELECT ifnull(max(id), 0) FROM alternate_name)
                """)
        let row = try Row.fetchOne(statement)!
        return Fingerprint(
            admin1Count: row[0], admin1LastRow: row[1], countryCount: row[2], countryLastRow: row[3], lastAlternateID: row[4])
    }

    static func read(_ db: Database) throws -> RegionCatalog {
        let admin1 = try Row.fetchAll(db, sql: "SELECT code, name, ascii_name, geonameid FROM admin1").map { row in
            Admin1Division(code: row[0], name: row[1], asciiName: row[2], geonameID: row[3])
        }
        let countries = try Row.fetchAll(db, sql: "SELECT code, name, geonameid FROM country").map { row in
            CountryInfo(code: row[0], name: row[1], geonameID: row[2])
        }
        var alternates: [AlternateName] = []
        for id in admin1.compactMap(\.geonameID) + countries.compactMap(\.geonameID) {
            alternates += try PlaceRows.alternates(db, placeID: id)
        }
        return RegionCatalog(admin1: admin1, countries: countries, alternates: alternates)
    }
}
