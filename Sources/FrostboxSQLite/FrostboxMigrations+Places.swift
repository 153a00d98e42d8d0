import GRDB

extension FrostboxMigrations {
    /// Places from GeoNames and the three name levels the search reads (see `PlaceLevels`):
    /// every folded name form per 0.05° box, settlement-like places per 1° cell, and
    /// settlement-like places per population tier. Name tables are WITHOUT ROWID: the
    /// primary key is the index, so a range scan reads nothing else.
    static func v5Places(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE place (
                    id INTEGER PRIMARY KEY CHECK (id > 0),
                    latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
                    longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
                    population INTEGER NOT NULL CHECK (population >= 0),
                    feature_class TEXT NOT NULL,
                    feature_code TEXT NOT NULL,
                    country_code TEXT NOT NULL,
                    admin1_code TEXT NOT NULL,
                    timezone TEXT NOT NULL,
                    modified TEXT NOT NULL,
                    name TEXT NOT NULL CHECK (name <> ''),
                    ascii_name TEXT NOT NULL,
                    alternate_names TEXT NOT NULL
                );
                CREATE TABLE place_name_box (
                    box INTEGER NOT NULL,
                    folded TEXT NOT NULL CHECK (folded <> ''),
                    place_id INTEGER NOT NULL,
                    PRIMARY KEY (box, folded, place_id)
                ) WITHOUT ROWID;
                CREATE TABLE place_name_cell (
                    cell INTEGER NOT NULL,
                    folded TEXT NOT NULL CHECK (folded <> ''),
                    place_id INTEGER NOT NULL,
                    PRIMARY KEY (cell, folded, place_id)
                ) WITHOUT ROWID;
                CREATE TABLE place_name_tier (
                    tier INTEGER NOT NULL CHECK (tier BETWEEN 0 AND 19),
                    folded TEXT NOT NULL CHECK (folded <> ''),
                    place_id INTEGER NOT NULL,
                    PRIMARY KEY (tier, folded, place_id)
                ) WITHOUT ROWID;
                CREATE TABLE admin1 (
                    code TEXT PRIMARY KEY NOT NULL CHECK (code LIKE '__.%'),
                    name TEXT NOT NULL,
                    ascii_name TEXT NOT NULL,
                    geonameid INTEGER
                );
                CREATE TABLE country (
                    code TEXT PRIMARY KEY NOT NULL CHECK (length(code) = 2),
                    name TEXT NOT NULL,
                    capital TEXT NOT NULL,
                    population INTEGER NOT NULL CHECK (population >= 0),
                    continent TEXT NOT NULL
                );
                """)
    }
}
