import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A file that cannot take writes (a full disk, a file-size limit, a read-only file) is a
/// `StorageUnavailableError`, logged once per change, and heals by itself. A full file is made
/// on demand with `PRAGMA max_page_count` on the writer connection.
@Suite("SQLite: a full disk says so and heals")
struct DiskFullTests {
    static func error(_ code: ResultCode) -> DatabaseError { DatabaseError(resultCode: code, message: "test") }

    @Test(
        "SQLite's result codes for a full, unwritable or unopenable file map to the reason; others are not storage trouble",
        arguments: [
            (ResultCode.SQLITE_FULL, Int32(0), StorageUnavailableError.Reason?.some(.diskFull)),
            (.SQLITE_IOERR_WRITE, ENOSPC, .diskFull),
            (.SQLITE_IOERR_WRITE, EDQUOT, .diskFull),
            (.SQLITE_IOERR_FSYNC, EFBIG, .diskFull),
            (.SQLITE_IOERR_WRITE, EIO, .down),
            (.SQLITE_IOERR_WRITE, EROFS, .readOnly),
            (.SQLITE_READONLY, 0, .readOnly),
            (.SQLITE_READONLY_DBMOVED, 0, .readOnly),
            (.SQLITE_CANTOPEN, ENOSPC, .diskFull),
            (.SQLITE_CANTOPEN, EACCES, .readOnly),
            (.SQLITE_CANTOPEN, 0, .down),
            (.SQLITE_IOERR_NOMEM, 0, nil),
            (.SQLITE_CONSTRAINT_UNIQUE, 0, nil),
            (.SQLITE_BUSY, 0, nil),
        ] as [(ResultCode, Int32, StorageUnavailableError.Reason?)])
    func mapping(code: ResultCode, systemErrno: Int32, reason: StorageUnavailableError.Reason?) {
        let mapped = SQLiteUnavailability.classify(Self.error(code), systemErrno: systemErrno, path: "/data/frostbox.sqlite")
        #expect(mapped?.reason == reason)
        if let mapped {
            #expect(mapped.code == "SQLite \(code.rawValue)")
            #expect(mapped.message.contains("/data/frostbox.sqlite"))
        }
        #expect(SQLiteUnavailability.classify(CancellationError()) == nil)
    }

    static func token(_ n: Int) throws -> DeviceToken { try DeviceToken(String(format: "%064x", n)) }

    /// Lets the writer connection grow the file by `pages` pages at most from now on (nil: no limit).
    static func limitGrowth(_ database: FrostboxDatabase, to pages: Int?) async throws {
        try await database.pool.writeWithoutTransaction { db in
            let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages.map { count + $0 } ?? 1_073_741_823)")
        }
    }

    /// Registers devices with rising tokens until a write is refused; that error.
    static func fill(_ store: GRDBSubscriptionStore, from first: Int) async throws -> (StorageUnavailableError, next: Int) {
        for n in first..<first + 20_000 {
            do {
                _ = try await store.register(DeviceRegistration(token: token(n)), at: 1)
            } catch let error as StorageUnavailableError {
                return (error, n + 1)
            }
        }
        throw CancellationError()
    }

    @Test(
        "writes to a full file throw StorageUnavailableError (disk full); /ready's probe says so; room again heals both, without reopening; one log line each way"
    )
    func fullFileHeals() async throws {
        let directory = try TemporaryDirectory()
        let logs = RecordingLogHandler.Store()
        let database = try FrostboxDatabase(path: directory.databasePath, logger: logs.logger(level: .info))
        database.health.diskFullHold = .zero
        let store = GRDBSubscriptionStore(database: database, maximumSubscriptionsPerDevice: 10)
        #expect(await database.isReady())

        try await Self.limitGrowth(database, to: 0)
        let (error, next) = try await Self.fill(store, from: 0)
        #expect(error.reason == .diskFull)
        #expect(error.code == "SQLite 13")
        await #expect(throws: StorageUnavailableError.self) { try await store.register(DeviceRegistration(token: Self.token(next)), at: 1) }
        #expect(!database.health.isAvailable)
        #expect(!(await database.isReady()), "the probe needs a new page too")
        #expect(try await store.device(Self.token(0)) != nil, "reads go on")

        try await Self.limitGrowth(database, to: nil)
        #expect(await database.isReady())
        #expect(try await store.register(DeviceRegistration(token: Self.token(next + 1)), at: 1))
        #expect(try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM storage_probe") } == 0)

        let lines = logs.all.filter { $0.message.contains("SQLite database") }.map(\.message)
        #expect(lines == ["SQLite database refuses writes", "SQLite database takes writes again"], "\(lines)")
    }

    @Test("a successful write heals at once, whatever the hold against probes")
    func writeHeals() async throws {
        let directory = try TemporaryDirectory()
        let database = try FrostboxDatabase(path: directory.databasePath)
        database.health.diskFullHold = .seconds(3_600)
        let store = GRDBSubscriptionStore(database: database, maximumSubscriptionsPerDevice: 10)
        try await Self.limitGrowth(database, to: 0)
        let (_, next) = try await Self.fill(store, from: 0)
        try await Self.limitGrowth(database, to: nil)
        #expect(!(await database.isReady()), "a probe alone does not end a disk-full spell within the hold")
        #expect(try await store.register(DeviceRegistration(token: Self.token(next)), at: 1))
        #expect(database.health.isAvailable)
        #expect(await database.isReady())
    }
}
