import FrostboxCore
import FrostboxDoubles
import Logging
import TestPostgres
import Testing

@testable import FrostboxPostgres
@testable import PostgresNIO

/// Issue #50, item 2: `/ready` and the health log through a lost primary. `/ready` says 503
/// within `database.connection_wait` once writes fail — also behind a proxy that takes
/// connections and answers nothing; the log names the server's SQLSTATE and message; and the
/// state changes back only on evidence that writes work, never on a read that may have
/// reached a standby.
@Suite("PostgreSQL readiness and health log on evidence", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct PostgresHealthEvidenceTests {
    static let wait = Duration.seconds(1)

    static func open(_ cluster: TestPostgresCluster, prefix: String, logger: Logger) async throws -> FrostboxPostgres.PostgresDatabase {
        let name = try await cluster.createDatabaseOffThePool(prefix: prefix)
        let settings = PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable)
        return try await FrostboxPostgres.PostgresDatabase.openedInTestScope(
            settings: settings, maximumConnections: 2, connectionWait: wait, logger: logger)
    }

    @Test(
        "a server that takes connections and answers nothing, writes hanging on both pooled connections: /ready says not ready within the connection wait; ready again once it answers"
    )
    func readyWithinTheWaitWhenTheServerStopsAnswering() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let database = try await Self.open(cluster, prefix: "frozen", logger: PostgresFaultTests.quiet)
        let store = PostgresSubscriptionStore(database: database)
        try await PostgresFaultTests.registerConcurrently(store, from: 0, count: 2)
        // Ready to begin with. Waited for, not probed once: one probe, bounded by the 1 s
        // connection wait, was missed once under the whole suite on two cores (a local `.ci/run`).
        try await PostgresFaultTests.within(.seconds(60), "ready before the freeze") {
            while await !database.isReady() { try await Task.sleep(for: .milliseconds(200)) }
        }

        try await TestPostgresCluster.offThePool { try cluster.freezeServer(true) }
        var thawed = false
        defer { if !thawed { try? cluster.freezeServer(false) } }
        // Writes that hang on the pool's connections (until the statement deadline).
        let writers = (0..<2).map { index in
            Task { _ = try? await store.register(DeviceRegistration(token: PostgresFaultTests.token(100 + index)), at: 3) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let started = clock.now
        let ready = await database.isReady()
        let took = clock.now - started
        #expect(ready == false, "no server answers: not ready")
        // Bounded by the wait, not by the 10 s statement deadline the hanging writes wait for;
        // the slack is for two cores busy with the whole suite (2.5 s seen once there, 3.1 s in
        // CI since), and stays under the deadline. Before the fix: "ready" after 3 s, which
        // `ready == false` above refuses whatever the time.
        #expect(took < Self.wait + .seconds(6), "answered in \(took)")

        try await TestPostgresCluster.offThePool { try cluster.freezeServer(false) }
        thawed = true
        for writer in writers { await writer.value }
        try await PostgresFaultTests.within(.seconds(60), "ready again") {
            while await !database.isReady() { try await Task.sleep(for: .milliseconds(200)) }
        }
    }

    @Test(
        "after an outage, reads from a read-only server announce nothing; the refused write is logged with SQLSTATE 25006 and the server's message; a write that works brings 'available again'"
    )
    func healthChangesOnlyOnEvidence() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let log = RecordingLogHandler.Store()
        let database = try await Self.open(cluster, prefix: "evidence", logger: log.logger(label: "frostbox.postgres", level: .info))
        let store = PostgresSubscriptionStore(database: database)
        try await PostgresFaultTests.registerConcurrently(store, from: 0, count: 2)

        // The primary goes away: /ready finds out, and the log says so (no connection, then why).
        try await TestPostgresCluster.offThePool { try cluster.stopServer() }
        #expect(await database.isReady() == false)
        #expect(!Self.lines(log, "PostgreSQL unavailable").isEmpty, "\(log.all)")

        // What comes back is read-only, as a standby (or an old primary demoted to one) is.
        try await TestPostgresCluster.offThePool {
            try cluster.startServer()
            try cluster.setReadOnly(true)
        }
        try await PostgresFaultTests.within(.seconds(60), "a read on the read-only server") {
            try await PostgresFaultTests.eventually { _ = try await database.query("SELECT count(*) FROM device") }
        }
        #expect(Self.lines(log, "PostgreSQL available again").isEmpty, "a read is no evidence that writes work: \(log.all)")
        await #expect(throws: StorageUnavailableError.self) {
            _ = try await store.register(DeviceRegistration(token: PostgresFaultTests.token(50)), at: 2)
        }
        let refused = try #require(Self.lines(log, "PostgreSQL unavailable").last)
        #expect(refused.metadata["sqlstate"] == "25006", "\(refused)")
        #expect("\(refused.metadata["message"] ?? "")".contains("read-only transaction"), "the server's own message: \(refused)")
        #expect(Self.lines(log, "PostgreSQL available again").isEmpty, "\(log.all)")

        try await TestPostgresCluster.offThePool { try cluster.setReadOnly(false) }
        try await PostgresFaultTests.within(.seconds(30), "a write after the read-only spell") {
            try await PostgresFaultTests.eventually { try await PostgresFaultTests.registerConcurrently(store, from: 60, count: 1) }
        }
        #expect(Self.lines(log, "PostgreSQL available again").count == 1, "\(log.all)")
        #expect(!log.all.contains { "\($0)".contains("Generic description") }, "\(log.all)")
    }

    @Test(
        "a connection closed on the server's last word (57P01 at a shutdown) is unavailable with that SQLSTATE and message, not postgres-nio's generic sentence"
    )
    func closedConnectionNamesTheServersReason() {
        let terminated = PSQLError.server(
            .init(fields: [.sqlState: "57P01", .message: "terminating connection due to administrator command", .severity: "FATAL"]))
        for closed in [PSQLError.serverClosedConnection(underlying: terminated), .clientClosedConnection(underlying: terminated)] {
            let unavailable = PostgresUnavailability.classify(closed)
            #expect(unavailable?.reason == .down)
            #expect(unavailable?.code == "57P01")
            #expect(unavailable?.message.contains("terminating connection due to administrator command") == true, "\(unavailable.map { "\($0)" } ?? "")")
        }
        // A standby's refusal that closed the connection is still read-only.
        let standby = PSQLError.server(.init(fields: [.sqlState: "25006", .message: "cannot execute UPDATE in a read-only transaction"]))
        #expect(PostgresUnavailability.classify(PSQLError.serverClosedConnection(underlying: standby))?.reason == .readOnly)
        // Without a server's word, the code and what lies under it, never the generic sentence.
        let described = PostgresUnavailability.describe(PSQLError.serverClosedConnection(underlying: terminated))
        #expect(described.contains("57P01") && !described.contains("Generic description"), "\(described)")
        #expect(PostgresStoreError.wrapping(terminated, doing: "x").description.contains("57P01"))
    }

    static func lines(_ log: RecordingLogHandler.Store, _ message: String) -> [RecordingLogHandler.Entry] {
        log.all.filter { $0.message == message }
    }
}
