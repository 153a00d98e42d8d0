import Foundation
import FrostboxCore
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// The outbox keyed by box on PostgreSQL (`p14-outbox-by-box`): with no foreign key on the
/// device id, a device's rows go with it through the boxes it subscribes to and those it has
/// left, and the writer keeps what the key gave (a device removed since the read is noticed,
/// a concurrent delete waits for the chunk's commit) by locking the chunk's devices.
@Suite("PostgreSQL: the outbox keyed by box", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct OutboxByBoxTests {
    let alice = PostgresFaultTests.token(0xa11ce)
    let bob = PostgresFaultTests.token(0xb0b)
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let away = try! Coordinate(latitude: 61.5, longitude: 23.75)

    /// A fresh migrated database with its stores.
    struct Subject {
        let cluster: TestPostgresCluster
        let database: PostgresDatabase
        let subscriptions: PostgresSubscriptionStore
        let store: PostgresNotifierStore

        func count(_ sql: String) async throws -> Int {
            let name = database.settings.database
            let rows = try await TestPostgresCluster.offThePool { try cluster.psql(sql, database: name) }
            return Int(rows.first?.first ?? "") ?? -1
        }

        func deviceID(_ token: DeviceToken) async throws -> Int64 {
            Int64(try await count("SELECT id FROM device WHERE token = '\(token.value)'"))
        }

        func rows(of deviceID: Int64) async throws -> Int {
            try await count("SELECT count(*) FROM outbox WHERE device_id = \(deviceID)")
        }
    }

    func subject(connections: Int = 4) async throws -> Subject {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let database = try await PostgresFaultTests.open(cluster, prefix: "bybox", connections: connections)
        return Subject(
            cluster: cluster, database: database, subscriptions: PostgresSubscriptionStore(database: database),
            store: PostgresNotifierStore(database: database, keptRuns: 2))
    }

    func entry(_ token: DeviceToken, box: GeoBox, key: Int64? = nil) -> OutboxEntry {
        let night = LocalDate(year: 2026, month: 5, day: 12)
        let alert = PlannedAlert(
            token: token, app: "fi.example.app", environment: .sandbox, event: FrostEvent(box: box, night: night, level: .freeze),
            kind: .frost, places: ["Home"], unit: .celsius, minimumC: -1.6, coldestAt: LocalDateTime(date: night.next, hour: 5),
            windowEnd: 10_000, relativeNight: .tonight)
        var entry = OutboxEntry(event: alert.event, kind: .frost, notification: alert.notification(), createdAt: 1_000)
        entry.deviceKey = key
        return entry
    }

    @Test("deleting a device removes its rows in the boxes it subscribes to and in those it left; another device's rows stay")
    func deviceDeletionReachesEveryBox() async throws {
        let subject = try await subject()
        try await subject.subscribe(alice, home, "Home")
        try await subject.subscribe(alice, away, "Cabin")
        try await subject.subscribe(bob, home, "Home")
        let stored = try await subject.store.enqueue(
            [entry(alice, box: home.box), entry(alice, box: away.box), entry(bob, box: home.box)], runID: nil)
        #expect(stored.count == 3)
        #expect(try await subject.subscriptions.unsubscribe(alice, at: away, named: try PlaceName("Cabin")) == 1)
        let aliceID = try await subject.deviceID(alice)
        let bobID = try await subject.deviceID(bob)
        #expect(try await subject.rows(of: aliceID) == 2)
        #expect(try await subject.count("SELECT count(*) FROM outbox_departed WHERE device_id = \(aliceID)") == 1)

        #expect(try await subject.subscriptions.deleteDevice(alice))
        #expect(try await subject.rows(of: aliceID) == 0)
        #expect(try await subject.rows(of: bobID) == 1)
        #expect(try await subject.count("SELECT count(*) FROM outbox_departed") == 0)
    }

    @Test("an alert planned before its device left the box and copied after it goes with the device when it is pruned")
    func alertWrittenAfterLeaving() async throws {
        let subject = try await subject()
        try await subject.subscribe(alice, home, "Home")
        let key = try #require(try await subject.store.places(in: [home.box])[home.box]?.first?.deviceKey)
        #expect(try await subject.subscriptions.unsubscribe(alice, at: home, named: try PlaceName("Home")) == 1)
        #expect(try await subject.store.enqueue([entry(alice, box: home.box, key: key)], runID: nil).count == 1)
        #expect(try await subject.rows(of: key) == 1)

        #expect(try await subject.store.pruneDevice(alice, registeredNoLaterThan: Int64.max))
        #expect(try await subject.rows(of: key) == 0)
        #expect(try await subject.store.alertedEvents(in: [home.box], now: 0).isEmpty)
    }

    @Test("a device removed since the subscription read is noticed: its entries are not stored, the chunk's others are")
    func removedSinceTheRead() async throws {
        let subject = try await subject()
        try await subject.subscribe(alice, home, "Home")
        try await subject.subscribe(bob, home, "Home")
        let places = try #require(try await subject.store.places(in: [home.box])[home.box])
        let keys = Dictionary(places.map { ($0.token, try! #require($0.deviceKey)) }, uniquingKeysWith: { first, _ in first })
        #expect(try await subject.subscriptions.deleteDevice(alice))

        let stored = try await subject.store.enqueue(
            [entry(alice, box: home.box, key: keys[alice]), entry(bob, box: home.box, key: keys[bob])], runID: nil)
        #expect(stored.map(\.notification.token) == [bob])
        #expect(try await subject.count("SELECT count(*) FROM outbox") == 1)
        #expect(try await subject.rows(of: try #require(keys[alice])) == 0)
    }

    @Test("a device deleted while a chunk with its alert is being written waits for the chunk's commit, then takes the alert with it")
    func concurrentDeleteWaitsForTheChunk() async throws {
        let subject = try await subject()
        try await subject.subscribe(alice, home, "Home")
        try await subject.subscribe(bob, home, "Home")
        let places = try #require(try await subject.store.places(in: [home.box])[home.box])
        let entries = places.map { entry($0.token, box: home.box, key: $0.deviceKey) }
        let aliceID = try await subject.deviceID(alice)
        let name = subject.database.settings.database
        let cluster = subject.cluster

        let (stored, deletion) = try await subject.database.transaction { connection in
            let stored = try await PostgresOutboxWriter.insert(entries, runID: nil, worker: "test", on: connection, logger: PostgresFaultTests.quiet)
            let deletion = Task {
                try await TestPostgresCluster.offThePool { try cluster.psql("DELETE FROM device WHERE id = \(aliceID) RETURNING id", database: name) }
            }
            // Commit only once the delete is seen waiting for the chunk's lock on Alice's row.
            try await PostgresFaultTests.within(.seconds(30), "the delete to wait for the chunk's lock") {
                while true {
                    let waiting = try await TestPostgresCluster.offThePool {
                        try cluster.psql(
                            // This database's sessions only: the cluster is shared with the other suites.
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                                + " AND query LIKE 'DELETE FROM device WHERE id = \(aliceID) %'",
                            database: name)
                    }
                    if waiting.first?.first == "1" { return }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            return (stored, deletion)
        }
        #expect(stored.count == 2)
        let deleted = try await PostgresFaultTests.within(.seconds(30), "the delete to finish") { try await deletion.value }
        #expect(deleted.first == [String(aliceID)], "the delete removed Alice's device")
        #expect(try await subject.rows(of: aliceID) == 0)
        #expect(try await subject.count("SELECT count(*) FROM outbox") == 1)
    }

    @Test("purge keeps a departed box a day old while it holds the device's rows, and drops it after")
    func departedPurge() async throws {
        let subject = try await subject()
        try await subject.subscribe(alice, home, "Home")
        try await subject.subscribe(alice, home, "Garden")
        try await subject.subscribe(alice, away, "Cabin")
        #expect(try await subject.store.enqueue([entry(alice, box: home.box), entry(alice, box: away.box)], runID: nil).count == 2)
        #expect(try await subject.subscriptions.unsubscribe(alice, at: home, named: try PlaceName("Garden")) == 1)
        #expect(try await subject.subscriptions.unsubscribe(alice, at: away, named: try PlaceName("Cabin")) == 1)
        #expect(try await subject.count("SELECT box FROM outbox_departed") == Int(away.box.key))

        _ = try await subject.count("UPDATE outbox_departed SET departed_at = departed_at - 172800 RETURNING 1")
        _ = try await subject.store.purge(before: 0)
        #expect(try await subject.count("SELECT count(*) FROM outbox_departed") == 1)
        _ = try await subject.count("DELETE FROM outbox WHERE box = \(away.box.key) RETURNING 1")
        _ = try await subject.store.purge(before: 0)
        #expect(try await subject.count("SELECT count(*) FROM outbox_departed") == 0)
        #expect(try await subject.rows(of: try await subject.deviceID(alice)) == 1)
    }
}

extension OutboxByBoxTests.Subject {
    func subscribe(_ token: DeviceToken, _ coordinate: Coordinate, _ name: String) async throws {
        _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: coordinate, name: try PlaceName(name)), at: 100)
    }
}
