import FrostboxPostgres
import TestPostgres

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
//     @Suite struct SubscriptionStoreContract {
//         @Test(arguments: SubscriptionStoreImplementation.allCases)
//         func registerIsIdempotent(_ implementation: SubscriptionStoreImplementation) async throws { … }
//     }
//
// Each test gets a fresh, empty store from `make`, so an implementation that drifts from the
// others fails the same named test.

/// Names an implementation in test output.
protocol ContractImplementation: CaseIterable, Sendable, CustomStringConvertible, RawRepresentable where RawValue == String {}

extension ContractImplementation {
    var description: String { rawValue }
}

/// The PostgreSQL side of the suites: a real server (`TestPostgresCluster`, started once per
/// test process), and a new empty database, migrated, for each test.
enum ContractPostgres {
    static func freshDatabase() async throws -> PostgresDatabase {
        let cluster = try TestPostgresCluster.shared()
        let name = try cluster.createDatabase(prefix: "contract")
        return try await PostgresDatabase(
            settings: PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable),
            maximumConnections: 4)
    }
}
