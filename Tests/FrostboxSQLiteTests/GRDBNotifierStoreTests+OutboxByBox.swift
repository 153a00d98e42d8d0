import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The outbox keyed by box (`v16-outbox-by-box`): with no foreign key on the device id, a
/// device's rows go with it through the boxes it subscribes to and the boxes it has left.
extension GRDBNotifierStoreTests {
    /// Outbox rows by device id (the device row may be gone).
    func rows(of deviceID: Int64) async throws -> Int {
        try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE device_id = ?", arguments: [deviceID]) ?? 0
        }
    }

    func deviceID(_ token: DeviceToken) async throws -> Int64 {
        try await database.pool.read { db in
            try #require(try Int64.fetchOne(db, sql: "SELECT id FROM device WHERE token = ?", arguments: [token.value]))
        }
    }

    @Test("deleting a device removes its rows in the boxes it subscribes to and in those it left; another device's rows stay")
    func deviceDeletionReachesEveryBox() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(alice, away, "Cabin")
        try await subscribe(bob, home, "Home")
        #expect(try await store.enqueue([entry(alice, box: home.box), entry(alice, box: away.box), entry(bob, box: home.box)], runID: nil).count == 3)
        #expect(try await subscriptions.unsubscribe(alice, at: away, named: try PlaceName("Cabin")) == 1)
        let aliceID = try await deviceID(alice)
        let bobID = try await deviceID(bob)
        #expect(try await rows(of: aliceID) == 2)

        #expect(try await subscriptions.deleteDevice(alice))
        #expect(try await rows(of: aliceID) == 0)
        #expect(try await rows(of: bobID) == 1)
        let departed = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_departed") ?? 0 }
        #expect(departed == 0)
    }

    @Test("an alert planned before its device left the box and written after it goes with the device; its key, reused, starts clean")
    func alertWrittenAfterLeaving() async throws {
        try await subscribe(alice, home, "Home")
        let key = try #require(try await store.places(in: [home.box])[home.box]?.first?.deviceKey)
        #expect(try await subscriptions.unsubscribe(alice, at: home, named: try PlaceName("Home")) == 1)
        var late = entry(alice, box: home.box)
        late.deviceKey = key
        #expect(try await store.enqueue([late], runID: nil).count == 1)

        #expect(try await store.pruneDevice(alice, registeredNoLaterThan: Int64.max))
        #expect(try await rows(of: key) == 0)
        // SQLite gives the freed highest key to the next device: nothing of Alice's is its.
        try await subscribe(bob, home, "Home")
        #expect(try await deviceID(bob) == key)
        #expect(try await store.alertedEvents(in: [home.box], now: 0).isEmpty)
        #expect(try await store.enqueue([entry(bob, box: home.box)], runID: nil).count == 1)
    }

    @Test("a device with two places in a box has not left it when one goes; purge keeps a departed box while it holds rows")
    func departedBoxes() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(alice, home, "Garden")
        try await subscribe(alice, away, "Cabin")
        #expect(try await store.enqueue([entry(alice, box: home.box), entry(alice, box: away.box)], runID: nil).count == 2)
        #expect(try await subscriptions.unsubscribe(alice, at: home, named: try PlaceName("Garden")) == 1)
        #expect(try await subscriptions.unsubscribe(alice, at: away, named: try PlaceName("Cabin")) == 1)
        let aliceID = try await deviceID(alice)
        let departed = try await database.pool.read { db in try Int64.fetchAll(db, sql: "SELECT box FROM outbox_departed") }
        #expect(departed == [away.box.key])

        // Two days on (the trigger stamps real time): the box still holds Alice's row, so it stays.
        try await database.pool.write { db in try db.execute(sql: "UPDATE outbox_departed SET departed_at = departed_at - 172800") }
        _ = try await store.purge(before: 0)
        #expect(try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_departed") } == 1)
        try await database.pool.write { db in try db.execute(sql: "DELETE FROM outbox WHERE box = ?", arguments: [away.box.key]) }
        _ = try await store.purge(before: 0)
        #expect(try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_departed") } == 0)
        #expect(try await rows(of: aliceID) == 1)
    }

    @Test("the migration keeps every row with its id and records the boxes a device had already left")
    func migrationKeepsRows() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.databasePath)
        try FrostboxMigrations.migrator(before: "v16-outbox-by-box").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, token, created_at, registered_at) VALUES (7, '\(alice.value)', 1, 1);
                    INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at)
                        VALUES ('\(alice.value)', 60.17, 24.94, \(home.box.key), 'Home', 'C', 1);
                    INSERT INTO outbox_push (id, push_type, priority, payload) VALUES (1, 'alert', 10, '{}');
                    INSERT INTO outbox (id, device_id, box, night, level, kind, push_id, created_at, expires_at)
                        VALUES (41, 7, \(home.box.key), 20260512, 2, 'frost', 1, 1, 100),
                               (42, 7, \(away.box.key), 20260512, 2, 'frost', 1, 1, 100);
                    """)
        }
        try FrostboxMigrations.migrator.migrate(queue)
        try queue.write { db in
            #expect(try Int64.fetchAll(db, sql: "SELECT id FROM outbox ORDER BY id") == [41, 42])
            #expect(try Int64.fetchAll(db, sql: "SELECT box FROM outbox_departed WHERE device_id = 7") == [away.box.key])
            try db.execute(sql: "DELETE FROM device WHERE id = 7")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") == 0)
        }
    }
}
