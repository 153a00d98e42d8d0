import Foundation
import GRDB
import Logging

/// The places file: GeoNames places, their name index, alternate names, division and
/// country names. Reference data, in its own SQLite file (`places.path`, by default
/// `NAME-places.sqlite` beside the device database `NAME.sqlite`) so that importing or
/// updating places never takes the device database's write lock: device writes neither
/// wait nor fail while an import runs. WAL mode: searches read the last committed places
/// throughout an import and see the new ones once it commits, without a restart.
public final class PlacesDatabase: Sendable {
    public let pool: DatabasePool
    /// Where the file lives.
    public let path: String
    /// The region catalog of this file: each file (each generation) has its own, so a
    /// catalog read from one file never answers for another.
    let regions = RegionCatalogCache()

    /// Opens (creating if needed) the places file at `path` and migrates it.
    public init(path: String, logger: Logger = Logger(label: "frostbox.places")) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        PrivateFile.createIfMissing(path)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try PlacesMigrations.migrator.migrate(pool)
        self.pool = pool
        self.path = path
        logger.debug("opened places", metadata: ["path": "\(path)"])
    }

    /// Opens a places generation (`PlaceGenerationFile`) read-only, without migrating it: a
    /// generation is never written once built.
    init(generationAt path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        self.pool = try DatabasePool(path: path, configuration: configuration)
        self.path = path
    }

    /// The default places file beside a device database: `dir/NAME.sqlite` →
    /// `dir/NAME-places.sqlite` (`dir/NAME` → `dir/NAME-places`).
    public static func defaultPath(beside databasePath: String) -> String {
        let path = databasePath as NSString
        let ext = path.pathExtension
        guard !ext.isEmpty else { return databasePath + "-places" }
        return path.deletingPathExtension + "-places." + ext
    }

    /// Whether no place is stored (cheap on any size).
    public func isEmpty() async throws -> Bool {
        try await pool.read { db in try Self.isEmpty(db) }
    }

    public static func isEmpty(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM place)") ?? true
    }

    /// How many places are stored (scans the table: for summaries, not for requests).
    public func placeCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0 }
    }

    /// Whether every stored place lies in one of `countries` (true when none is stored). In a
    /// file with places elsewhere it stops at the first such place.
    public func holdsOnly(countries: Set<String>) async throws -> Bool {
        let list = countries.sorted().map { "'\($0.filter(\.isLetter))'" }.joined(separator: ",")
        return try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM place WHERE country_code NOT IN (\(list)))") ?? false
        }
    }

    /// The newest GeoNames modification date among the stored places (`YYYY-MM-DD`), nil
    /// when none are stored: how recent the data is.
    public func newestModified() async throws -> String? {
        try await pool.read { db in try String.fetchOne(db, sql: "SELECT max(modified) FROM place") }
    }

    /// Moves the places of a device database from before places had their own file into
    /// this one, in one transaction, when this file holds none yet (the device database's
    /// migration then drops its copies). Returns how many places moved.
    func adoptPlaces(ofDatabaseAt legacyPath: String, logger: Logger) throws -> Int {
        try pool.writeWithoutTransaction { db in
            guard try Self.isEmpty(db) else {
                logger.warning(
                    "the device database still holds places from before places had their own file, but the places file has its own; keeping the places file's",
                    metadata: ["database": "\(legacyPath)", "places": "\(path)"])
                return 0
            }
            try db.execute(sql: "ATTACH DATABASE ? AS legacy", arguments: [legacyPath])
            defer { try? db.execute(sql: "DETACH DATABASE legacy") }
            try db.inTransaction {
                try db.execute(
                    sql: """
                        INSERT INTO place SELECT * FROM legacy.place ORDER BY id;
                        INSERT INTO place_name_box SELECT * FROM legacy.place_name_box ORDER BY box, folded, place_id;
                        INSERT INTO place_name_cell SELECT * FROM legacy.place_name_cell ORDER BY cell, folded, place_id;
                        INSERT INTO place_name_tier SELECT * FROM legacy.place_name_tier ORDER BY tier, folded, place_id;
                        INSERT INTO admin1 SELECT * FROM legacy.admin1;
                        INSERT INTO country (code, name, capital, population, continent)
                            SELECT code, name, capital, population, continent FROM legacy.country;
                        """)
                return .commit
            }
            let moved = try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0
            logger.notice(
                "moved places into their own file", metadata: ["database": "\(legacyPath)", "places": "\(path)", "count": "\(moved)"])
            return moved
        }
    }
}

/// The places file's schema, as an append-only list of named migrations (see
/// `FrostboxMigrations` for the rules).
public enum PlacesMigrations {
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // The tables places had in the device database (its v5), unchanged.
        migrator.registerMigration("p1-places", migrate: FrostboxMigrations.v5Places)
        migrator.registerMigration("p2-alternate-names", migrate: p2AlternateNames)
        migrator.registerMigration("p3-country-geonameid", migrate: p3CountryGeonameID)
        return migrator
    }

    /// The geonameid of each country's own row (countryInfo's column): its alternate names
    /// name the country in other languages for "name region" queries. NULL for countries
    /// stored before (and for files that give none).
    static func p3CountryGeonameID(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE country ADD COLUMN geonameid INTEGER")
    }

    /// GeoNames' alternate names table (V2 columns), by alternateNameId; looked up by place.
    static func p2AlternateNames(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE alternate_name (
                    id INTEGER PRIMARY KEY CHECK (id > 0),
                    place_id INTEGER NOT NULL,
                    language TEXT NOT NULL,
                    name TEXT NOT NULL,
                    is_preferred INTEGER NOT NULL CHECK (is_preferred = 0 OR is_preferred = 1),
                    is_short INTEGER NOT NULL CHECK (is_short = 0 OR is_short = 1),
                    is_colloquial INTEGER NOT NULL CHECK (is_colloquial = 0 OR is_colloquial = 1),
                    is_historic INTEGER NOT NULL CHECK (is_historic = 0 OR is_historic = 1),
                    valid_from TEXT NOT NULL,
                    valid_to TEXT NOT NULL
                );
                CREATE INDEX alternate_name_on_place ON alternate_name(place_id);
                """)
    }
}
