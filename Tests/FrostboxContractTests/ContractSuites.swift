import FrostboxPostgres
import TestPostgres
import Testing

// Contract suites: one set of tests per core port (SubscriptionStore, NotifierStore,
// PlaceIndex, the quota ledger, the forecast cache), run against every implementation of it.
//
// Shape of a suite (one file per port, `<Port>Contract.swift`):
//
//     enum SubscriptionStoreImplementation: String, CaseIterable, CustomTestStringConvertible {
//         case grdb, inMemory, postgres
//         func make(in dir: TemporaryDirectory) async throws -> any SubscriptionStore { … }
//     }
//
//     @Suite(.backgroundWorkScoped) struct SubscriptionStoreContract {  // the PostgreSQL pools end with each test
//         @Test(arguments: SubscriptionStoreImplementation.available)
//         func registerIsIdempotent(_ implementation: SubscriptionStoreImplementation) async throws { … }
//     }
//
// Each test gets a fresh, empty store from `make`, so an implementation that drifts from the
// others fails the same named test.

/// Names an implementation in test output.
protocol ContractImplementation: CaseIterable, Sendable, CustomStringConvertible, RawRepresentable where RawValue == String {}

extension ContractImplementation {
    var description: String { rawValue }

    /// The implementations to test here: all of them, less `postgres` where PostgreSQL is not
    /// installed (then `PostgresContractAvailability` reports the skip and its reason;
    /// `.ci/run` makes PostgreSQL mandatory).
    static var available: [Self] {
        allCases.filter { $0.rawValue != "postgres" || TestPostgresCluster.isEnabled }
    }
}

/// Where the PostgreSQL cases of the contract suites are left out (no PostgreSQL installed),
/// this suite says so as a skip with the reason; where they run, it checks that each test's
/// fresh database is migrated and empty.
@Suite("PostgreSQL cases of the contract suites", .requiresPostgres, .backgroundWorkScoped)
struct PostgresContractAvailability {
    @Test("a fresh contract database is migrated, and holds no device")
    func freshDatabase() async throws {
        let database = try await ContractPostgres.freshDatabase()
        let devices = try await TestPostgresCluster.sharedOffThePool().query("SELECT count(*) FROM device", database: database.settings.database)
        #expect(devices == [["0"]])
    }
}

/// The PostgreSQL side of the suites: a real server (`TestPostgresCluster`, started once per
/// test process), and a new empty database, migrated, for each test. Its pool runs in the
/// test's scope: every suite that opens one carries `.backgroundWorkScoped`.
enum ContractPostgres {
    static func freshDatabase() async throws -> PostgresDatabase {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        return try await database(named: try await cluster.createDatabaseOffThePool(prefix: "contract"))
    }

    /// Another pool on database `name` (a second instance of a cluster), running in the test's scope.
    static func database(named name: String) async throws -> PostgresDatabase {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await PostgresDatabase(
            settings: PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable),
            // Generous: on a loaded machine a statement's task can wait over 1 s for a thread.
            maximumConnections: 4, connectionWait: .seconds(5))
        try BackgroundWorkScope.run { try? await database.run() }
        try await database.warmUp(within: .seconds(60))
        return database
    }
}
