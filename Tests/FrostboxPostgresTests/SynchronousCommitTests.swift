import FrostboxCore
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// A write is acknowledged only once its commit is done. Under synchronous replication a
/// commit waits for the standby; a primary cut off from the others demotes itself and ends
/// those sessions (57P01, "already committed locally"), and the new primary never had the
/// rows. Found by the partition scenario of `Tests/Failover` (5–9 acknowledged subscriptions
/// lost a run): a single statement's implicit commit came after the answer the caller took
/// for success. Here, without a cluster: a standby name no standby has makes every commit
/// wait, and the waiting session is ended as a demoting primary ends it.
@Suite("PostgreSQL: a write is acknowledged after its commit", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct SynchronousCommitTests {
    enum Write: String, CaseIterable, Sendable {
        case register, subscribe
    }

    @Test(
        "a write whose commit waits for a synchronous standby, its session then ended by the server (57P01), is refused, not acknowledged",
        arguments: Write.allCases)
    func endedCommitWaitIsNotAcknowledged(_ write: Write) async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let database = try await PostgresFaultTests.open(cluster, prefix: "syncwait", connections: 3)
        let store = PostgresSubscriptionStore(database: database)
        let token = PostgresFaultTests.token(7)
        let home = try Coordinate(latitude: 60.17, longitude: 24.94)
        if write == .subscribe { _ = try await store.register(DeviceRegistration(token: token), at: 1) }

        try await TestPostgresCluster.offThePool {
            _ = try cluster.psql("ALTER SYSTEM SET synchronous_standby_names = 'frostbox_no_such_standby'", database: "postgres")
            _ = try cluster.psql("SELECT pg_reload_conf()", database: "postgres")
        }
        let attempt = Task {
            switch write {
            case .register: _ = try await store.register(DeviceRegistration(token: PostgresFaultTests.token(8)), at: 2)
            case .subscribe: _ = try await store.subscribe(token, to: NewSubscription(coordinate: home, name: try PlaceName("Home")), at: 2)
            }
        }
        // The write's session waits for the standby; end it as a demoting primary does.
        let ended = try await PostgresFaultTests.within(.seconds(30), "the write to wait for the standby") {
            while true {
                let rows = try await TestPostgresCluster.offThePool {
                    try cluster.psql(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'", database: "postgres")
                }
                if !rows.isEmpty { return rows.count }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(ended == 1)
        let outcome = await attempt.result
        #expect(throws: StorageUnavailableError.self, "the \(write.rawValue) must not be acknowledged") { try outcome.get() }

        try await TestPostgresCluster.offThePool {
            _ = try cluster.psql("ALTER SYSTEM RESET synchronous_standby_names", database: "postgres")
            _ = try cluster.psql("SELECT pg_reload_conf()", database: "postgres")
        }
        // Writes are acknowledged again once commits need no standby.
        try await PostgresFaultTests.within(.seconds(30), "a write after the standby requirement is lifted") {
            try await PostgresFaultTests.eventually { _ = try await store.register(DeviceRegistration(token: PostgresFaultTests.token(9)), at: 3) }
        }
    }
}
