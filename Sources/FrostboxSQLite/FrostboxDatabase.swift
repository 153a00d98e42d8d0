import Foundation
import FrostboxCore
import FrostboxStorageFormats
import GRDB
import Logging

/// The one SQLite file of a Frostbox installation: a GRDB `DatabasePool` in WAL mode with
/// `synchronous = FULL`, every migration applied, and a group committer for durable writes.
/// Writes that fail because the file cannot take them (a full disk, a file-size limit, a
/// read-only file) throw `StorageUnavailableError` and are recorded in `health`.
public final class FrostboxDatabase: Sendable {
    /// The pool; adapters read through it and write through `write(_:)` or `writeTransaction(_:)`.
    public let pool: DatabasePool
    /// Where the file lives.
    public let path: String
    /// Whether the file takes writes, from the last writes and readiness probes.
    public let health: StorageHealthMonitor
    let committer: GroupCommitter

    /// Opens (creating if needed) the database at `path` and migrates it. A database from
    /// before places had their own file has its places moved to `placesPath` first (default:
    /// `PlacesDatabase.defaultPath(beside: path)`). A file that cannot be created or written
    /// (a full disk, a file-size limit, a read-only file system) throws `StorageUnavailableError`
    /// saying so.
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
            // Pages of the database file read through a memory map: a reader starts each
            // transaction with an empty cache whenever the file changed (in a notify run, every
            // chunk), and copying every page it needs out of the OS by `pread` cost a quarter
            // of a run's subscription reads. Writes still go through the WAL. The map covers
            // the file's first `memoryMapBytes`; each connection maps on its own, and mapped
            // pages count in the process's resident size (README, "Deployment").
            try db.execute(sql: "PRAGMA mmap_size = \(Self.memoryMapBytes)")
        }
        PrivateFile.createIfMissing(path)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            // No connection to ask: the failed system call's errno is this thread's, if GRDB
            // opened the file here (it does, synchronously).
            throw SQLiteUnavailability.classify(error, systemErrno: errno, path: path) ?? error
        }
        do {
            let migrator = FrostboxMigrations.migrator
            if try pool.read({ db in try Self.holdsLegacyPlaces(db, migrator: migrator) }) {
                let places = try PlacesDatabase(path: placesPath ?? PlacesDatabase.defaultPath(beside: path), logger: logger)
                _ = try places.adoptPlaces(ofDatabaseAt: path, logger: logger)
            }
            try migrator.migrate(pool)
        } catch {
            let system = pool.writeWithoutTransaction { db in SQLiteUnavailability.systemErrno(db) }
            throw SQLiteUnavailability.classify(error, systemErrno: system, path: path) ?? error
        }
        self.pool = pool
        self.path = path
        self.committer = GroupCommitter(pool: pool)
        self.health = StorageHealthMonitor(
            lines: .init(
                unavailable: "SQLite database refuses writes", stillUnavailable: "SQLite database still refuses writes",
                availableAgain: "SQLite database takes writes again", codeKey: "code"),
            logger: logger)
        logger.debug("opened database", metadata: ["path": "\(path)"])
    }

    /// How much of the file connections read through a memory map.
    static let memoryMapBytes: Int64 = 256 << 20

    /// Whether the database still has places from before they had their own file.
    static func holdsLegacyPlaces(_ db: Database, migrator: DatabaseMigrator) throws -> Bool {
        guard try db.tableExists("place"), try !migrator.appliedIdentifiers(db).contains("v8-places-own-file") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM place)") ?? false
    }

    /// Runs `body` in a write transaction shared with other concurrent writers (group
    /// commit), inside its own savepoint: its changes commit, or roll back alone when it
    /// throws. Returns after the commit is durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await recorded { try await self.committer.write(body) }
    }

    /// Runs `body` in a write transaction of its own (big or long writes that should not hold
    /// up the group committer's small ones). Returns after the commit is durable.
    public func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await recorded { try await self.pool.write(body) }
    }

    /// Whether every known migration has been applied (for readiness checks).
    public func isMigrated() async throws -> Bool {
        try await pool.read { db in
            try FrostboxMigrations.migrator.hasCompletedMigrations(db)
        }
    }

    /// Readiness (`/ready`): every migration applied and the file taking writes. While the last
    /// writes went through, that is all it asks; once a write failed for lack of space or
    /// permission, each call makes a probe write (a page more than the file's free pages, up to
    /// 17, inserted and deleted, committed)
    /// and answers from its outcome: the file is ready again when the probe commits (after a
    /// disk-full failure, not before `health.diskFullHold` has passed) or a real write commits.
    public func isReady() async -> Bool {
        guard (try? await isMigrated()) == true else { return false }
        if health.isAvailable { return true }
        do {
            try await pool.write { db in
                let page = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
                // Free pages inside the file take a write without the file growing: the probe
                // fills those there are (up to 16) and one more, so it commits only when the
                // file can grow (or has room to spare).
                let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                try db.execute(sql: "INSERT INTO storage_probe (filler) VALUES (zeroblob(?))", arguments: [page * (min(free, 16) + 1)])
                try db.execute(sql: "DELETE FROM storage_probe")
            }
            health.record(.writable)
        } catch {
            if let unavailable = await classify(error) { health.record(.failed(unavailable)) }
        }
        return health.isAvailable
    }

    /// Runs a write, records its outcome in `health`, and turns a failure of the file (not of
    /// the statement) into `StorageUnavailableError`.
    private func recorded<T>(_ write: () async throws -> T) async throws -> T {
        do {
            let result = try await write()
            health.record(.succeeded(wrote: true))
            return result
        } catch {
            guard let unavailable = await classify(error) else { throw error }
            health.record(.failed(unavailable))
            throw unavailable
        }
    }

    /// `error` as a `StorageUnavailableError`, with the system's reason for an I/O failure.
    private func classify(_ error: any Error) async -> StorageUnavailableError? {
        guard let failure = error as? DatabaseError, failure.resultCode == .SQLITE_IOERR || failure.resultCode == .SQLITE_CANTOPEN else {
            return SQLiteUnavailability.classify(error, path: path)
        }
        let system = (try? await pool.writeWithoutTransaction { db in SQLiteUnavailability.systemErrno(db) }) ?? 0
        return SQLiteUnavailability.classify(error, systemErrno: system, path: path)
    }
}
