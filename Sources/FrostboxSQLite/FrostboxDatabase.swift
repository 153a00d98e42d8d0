import FrostboxCore
import GRDB
import Logging

/// The one SQLite file of a Frostbox installation: a GRDB `DatabasePool` in WAL mode with
/// `synchronous = FULL`, every migration applied, and a group committer for durable writes.
public final class FrostboxDatabase: Sendable {
    /// The pool; adapters read through it and write through `write(_:)`.
    public let pool: DatabasePool
    /// Where the file lives.
    public let path: String
    let committer: GroupCommitter

    /// Opens (creating if needed) the database at `path` and migrates it. A database from
    /// before places had their own file has its places moved to `placesPath` first (default:
    /// `PlacesDatabase.defaultPath(beside: path)`).
    public init(path: String, placesPath: String? = nil, logger: Logger = Logger(label: "frostbox.sqlite")) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // FULL: a commit is on disk before we acknowledge it, power loss included.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A larger page cache for the one writer: a notify run appends a million outbox
            // rows and their index entries in big transactions, and re-reading evicted pages
            // from the OS cost a fifth of that time. Readers keep SQLite's default.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -131072") }
        }
        PrivateFile.createIfMissing(path)
        let pool = try DatabasePool(path: path, configuration: configuration)
        let migrator = FrostboxMigrations.migrator
        if try pool.read({ db in try Self.holdsLegacyPlaces(db, migrator: migrator) }) {
            let places = try PlacesDatabase(path: placesPath ?? PlacesDatabase.defaultPath(beside: path), logger: logger)
            _ = try places.adoptPlaces(ofDatabaseAt: path, logger: logger)
        }
        try migrator.migrate(pool)
        self.pool = pool
        self.path = path
        self.committer = GroupCommitter(pool: pool)
        logger.debug("opened database", metadata: ["path": "\(path)"])
    }

    /// Whether the database still has places from before they had their own file.
    static func holdsLegacyPlaces(_ db: Database, migrator: DatabaseMigrator) throws -> Bool {
        guard try db.tableExists("place"), try !migrator.appliedIdentifiers(db).contains("v8-places-own-file") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM place)") ?? false
    }

    /// Runs `body` in a write transaction shared with other concurrent writers (group
    /// commit), inside its own savepoint: its changes commit, or roll back alone when it
    /// throws. Returns after the commit is durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await committer.write(body)
    }

    /// Whether every known migration has been applied (for readiness checks).
    public func isMigrated() async throws -> Bool {
        try await pool.read { db in
            try FrostboxMigrations.migrator.hasCompletedMigrations(db)
        }
    }
}
