import Foundation
import FrostboxCore
import FrostboxPostgres
import TestPostgres
import Testing

/// A shared run lists its boxes from the notify order; when devices must be proven real
/// (issue #33), only boxes with a verified device, in that same order.
@Suite("shared notify runs with device verification", .requiresPostgres, .backgroundWorkScoped)
struct SharedRunVerificationTests {
    @Test("a shared run started by a verified-only store lists just the boxes with a verified device; verifying one adds its box to the next run")
    func runListsVerifiedBoxes() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await PostgresDatabase.openedInTestScope(
            settings: PostgresConnectionSettings(
                host: cluster.host, port: cluster.port, user: cluster.user, database: try await cluster.createDatabaseOffThePool(prefix: "verify"),
                tls: .disable),
            maximumConnections: 4, logger: PostgresDatabaseTests.quiet)
        let subscriptions = PostgresSubscriptionStore(database: database)
        for index in 0..<4 {
            let place = try Coordinate(latitude: 60.002 + Double(index) * 0.05, longitude: 24.002)
            _ = try await subscriptions.subscribe(
                DeviceToken(trusted: String(format: "ee%030x", index)), to: NewSubscription(coordinate: place, name: try PlaceName("P\(index)")),
                at: SharedRunTests.now)
        }
        let a = PostgresNotifierStore(database: database, worker: "a", leaseSeconds: SharedRunTests.lease)
        let store = PostgresNotifierStore(database: database, worker: "b", leaseSeconds: SharedRunTests.lease, verifiedDevicesOnly: true)
        #expect(try await store.boxesToNotify().isEmpty)
        let first = try #require(try await store.pendingDevices(after: nil, limit: 10).first)
        try await store.markVerified([first.token], at: SharedRunTests.now)
        let run = try #require(try await store.joinOrStartRun(at: SharedRunTests.now, startNew: true, startedAfter: nil))
        #expect(run.started && run.boxes == 1)
        #expect(try await store.claimBoxes(runID: run.runID, limit: 10, at: SharedRunTests.now) == (try await store.boxesToNotify()))
        // The store that counts every device lists all four.
        #expect(try await a.boxesToNotify().count == 4)
        #expect(try await store.verificationCounts() == VerificationCounts(pendingDevices: 3, boxesAwaitingVerification: 3))
    }
}
