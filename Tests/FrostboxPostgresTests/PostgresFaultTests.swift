import Foundation
import FrostboxCore
import Logging
import PostgresNIO
import Synchronization
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// The adapter through database trouble, on clusters of the suite's own: no error path may
/// cost the pool a connection, database trouble is a `StorageUnavailableError` that says why,
/// and the database is usable again as soon as the server is.
@Suite("PostgreSQL faults", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct PostgresFaultTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The wedge of issue #32: before the fix, a few of the failed writes each kept their
    /// pooled connection, and once all were kept every statement waited forever.
    @Test("a read-only spell under concurrent writes: each write refused as read-only (25006), no pooled connection lost, writes work again once it ends")
    func readOnlySpellLeaksNoConnection() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        // A small pool: every connection a failed write kept would be missed at once.
        let database = try await Self.open(cluster, prefix: "readonly", connections: 3)
        let store = PostgresSubscriptionStore(database: database)

        try await TestPostgresCluster.offThePool { try cluster.setReadOnly(true) }
        // The sessions take the reloaded setting once the postmaster has signalled them (a
        // moment, longer on a loaded machine: one CI run stored a write before it). Until every
        // pooled connection says read-only, ask all of them at once (more askers than connections).
        try await Self.within(.seconds(60), "every pooled connection to see the read-only spell") {
            while true {
                let seen = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            for try await value in try await database.query("SHOW default_transaction_read_only").decode(String.self) { return value }
                            return ""
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                if seen.allSatisfy({ $0 == "on" }) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        // Busy cores, as on the loaded host where the wedge was seen: the server's reply then
        // at times outruns the thread that sent the statement, which is when the lease was lost.
        let burners = CPUBurners(count: 3)
        defer { burners.stop() }
        let reasons = try await Self.within(.seconds(180), "writes during the read-only spell") {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var reasons: [String] = []
                        for attempt in 0..<1_000 {
                            do {
                                _ = try await store.register(DeviceRegistration(token: Self.token(worker * 1_000 + attempt)), at: 1)
                                reasons.append("stored")
                            } catch let error as StorageUnavailableError {
                                reasons.append("\(error.reason.rawValue) \(error.code ?? "")")
                            } catch {
                                reasons.append("\(error)")
                            }
                        }
                        return reasons
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
        }
        let tally = Dictionary(grouping: reasons, by: { $0 }).mapValues(\.count)
        // A write may also wait in vain for a connection busy with others' refused writes.
        #expect(tally["read-only 25006", default: 0] > 4_000 && Set(tally.keys).isSubset(of: ["read-only 25006", "no connection "]), "\(tally)")
        #expect(await database.isReady() == false, "/ready says not ready while writes are refused")

        try await TestPostgresCluster.offThePool { try cluster.setReadOnly(false) }
        // More writers than connections: each connection must be back in the pool.
        try await Self.within(.seconds(30), "writes after the spell") {
            try await Self.eventually { try await Self.registerConcurrently(store, from: 90_000, count: 12) }
        }
        #expect(try await cluster.query("SELECT count(*) FROM device", database: database.settings.database) == [["12"]])
        #expect(await database.isReady(), "/ready says ready again")
    }

    @Test("a transaction that fails at COMMIT leaves its connection usable or closed, never handed back in a broken state")
    func failedCommitLeavesNoBrokenConnection() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await Self.open(cluster, prefix: "commit", connections: 1)
        try await database.query(
            "CREATE TABLE deferred_unique (v INT, CONSTRAINT one UNIQUE (v) DEFERRABLE INITIALLY DEFERRED)", writes: true)
        for _ in 0..<5 {
            await #expect(throws: (any Error).self) {
                try await database.transaction { connection in
                    _ = try await connection.query("INSERT INTO deferred_unique VALUES (1), (1)", logger: Self.quiet)
                }
            }
        }
        try await Self.within(.seconds(30), "a write after the failed commits") {
            try await Self.eventually { try await Self.registerConcurrently(PostgresSubscriptionStore(database: database), from: 0, count: 3) }
        }
    }

    @Test("statements abandoned by cancelled requests give their connection back")
    func cancelledStatementsReturnTheirConnection() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await Self.open(cluster, prefix: "cancel", connections: 2)
        let sleepers = (0..<6).map { _ in Task { try await database.query("SELECT pg_sleep(0.3)") } }
        try await Task.sleep(for: .milliseconds(50))
        for sleeper in sleepers { sleeper.cancel() }
        for sleeper in sleepers { _ = try? await sleeper.value }
        try await Self.within(.seconds(30), "writes after the cancellations") {
            try await Self.eventually { try await Self.registerConcurrently(PostgresSubscriptionStore(database: database), from: 0, count: 6) }
        }
    }

    @Test("with the server stopped, a statement fails fast as unavailable, /ready says so, and the database works again once the server is back")
    func stoppedServer() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let database = try await Self.open(cluster, prefix: "stop", connections: 2)
        let store = PostgresSubscriptionStore(database: database)
        try await Self.registerConcurrently(store, from: 0, count: 4)
        try await TestPostgresCluster.offThePool { try cluster.stopServer() }
        let clock = ContinuousClock()
        for index in 0..<5 {
            let started = clock.now
            await #expect(throws: StorageUnavailableError.self) {
                _ = try await store.register(DeviceRegistration(token: Self.token(100 + index)), at: 1)
            }
            #expect(clock.now - started < .seconds(5), "answered within the connection wait, not the request timeout")
        }
        #expect(await database.isReady() == false)
        #expect(database.health.unavailable?.reason == .down, "\(String(describing: database.health.unavailable))")
        try await TestPostgresCluster.offThePool { try cluster.startServer() }
        try await Self.within(.seconds(60), "writes after the restart") {
            try await Self.eventually { try await Self.registerConcurrently(store, from: 200, count: 4) }
        }
        #expect(await database.isReady())
    }

    /// Issue #32's requests that waited for their deadline at a restart: postgres-nio 1.33.2
    /// writes a statement to its channel without a promise, so on a connection whose channel
    /// had closed (the pool handed it out as the server went away) the statement is dropped
    /// and its caller waits forever. Such a statement is answered as unavailable at once.
    @Test("a statement on a connection that closed under it is answered as unavailable, not left waiting")
    func statementOnClosedConnection() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await Self.open(cluster, prefix: "closed", connections: 2)
        let outcome = try await Self.within(.seconds(60), "a statement on a closed connection") {
            do {
                try await database.withConnection { connection in
                    try await connection.close()
                    // NIO takes the closed channel's handlers down on a later turn of its loop.
                    try await Task.sleep(for: .milliseconds(200))
                    for try await _ in try await connection.query("SELECT 1", logger: Self.quiet) {}
                }
                return "answered"
            } catch let error as StorageUnavailableError {
                return error.reason.rawValue
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == StorageUnavailableError.Reason.down.rawValue)
        try await Self.within(.seconds(30), "a write after it") {
            try await Self.eventually { try await Self.registerConcurrently(PostgresSubscriptionStore(database: database), from: 0, count: 2) }
        }
    }

    @Test("SQLSTATEs of a server that cannot take work map to their reasons; others are not storage trouble")
    func classifiesSQLStates() {
        #expect(PostgresUnavailability.reason(sqlState: "25006") == .readOnly)
        #expect(PostgresUnavailability.reason(sqlState: "53100") == .diskFull)
        #expect(PostgresUnavailability.reason(sqlState: "53300") == .tooManyConnections)
        for state in ["57P01", "57P02", "57P03", "08006"] { #expect(PostgresUnavailability.reason(sqlState: state) == .down) }
        for state in ["23505", "40001", "42P01", "22P02"] { #expect(PostgresUnavailability.reason(sqlState: state) == nil) }
        #expect(PostgresUnavailability.classify(CancellationError()) == nil)
    }

    // MARK: Helpers

    static func open(_ cluster: TestPostgresCluster, prefix: String, connections: Int) async throws -> FrostboxPostgres.PostgresDatabase {
        let name = try await cluster.createDatabaseOffThePool(prefix: prefix)
        let settings = PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable)
        return try await FrostboxPostgres.PostgresDatabase.openedInTestScope(
            settings: settings, maximumConnections: connections, connectionWait: .seconds(1), logger: quiet)
    }

    static func registerConcurrently(_ store: PostgresSubscriptionStore, from first: Int, count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in first..<(first + count) {
                group.addTask { _ = try await store.register(DeviceRegistration(token: Self.token(index)), at: 2) }
            }
            try await group.waitForAll()
        }
    }

    /// `body` tried again every 100 ms while it fails with `StorageUnavailableError` (the pool
    /// reconnects, or a connection is still busy with abandoned work); other errors end it.
    static func eventually(_ body: @Sendable () async throws -> Void) async throws {
        while true {
            do {
                return try await body()
            } catch is StorageUnavailableError {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    static func token(_ index: Int) -> DeviceToken {
        DeviceToken(trusted: String(format: "%032x", index))
    }

    struct Overdue: Error, CustomStringConvertible {
        var description: String
    }

    /// `body`'s result, or `Overdue` when it has not finished after `limit` (it is cancelled).
    static func within<T: Sendable>(
        _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() ?? nil else { throw Overdue(description: "\(what) took over \(limit)") }
            return result
        }
    }
}

/// Threads that keep cores busy until stopped.
final class CPUBurners: Sendable {
    private let running = Atomic<Bool>(true)

    init(count: Int) {
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                var state: UInt64 = 1
                while running.load(ordering: .relaxed) { state = state &* 6_364_136_223_846_793_005 &+ 1 }
                _ = state
            }
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
