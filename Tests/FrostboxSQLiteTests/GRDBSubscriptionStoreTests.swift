import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import GRDB
import Testing

@Suite("GRDBSubscriptionStore on a real SQLite file")
struct GRDBSubscriptionStoreTests {
    let directory: TemporaryDirectory
    let token: DeviceToken

    init() throws {
        directory = try TemporaryDirectory()
        token = try DeviceToken("0123456789abcdef0123456789abcdef")
    }

    func open(limit: Int = 50) throws -> GRDBSubscriptionStore {
        GRDBSubscriptionStore(database: try FrostboxDatabase(path: directory.databasePath), maximumSubscriptionsPerDevice: limit)
    }

    static func helsinki(_ name: String = "Helsinki", lat: Double = 60.17, lon: Double = 24.94, unit: TemperatureUnit = .celsius) throws -> NewSubscription {
        NewSubscription(coordinate: try Coordinate(latitude: lat, longitude: lon), name: try PlaceName(name), unit: unit)
    }

    @Test("register is idempotent and refreshes registered_at")
    func registerIdempotent() async throws {
        let store = try open()
        #expect(try await store.register(DeviceRegistration(token: token), at: 100) == true)
        #expect(try await store.register(DeviceRegistration(token: token, app: "fi.example.app", environment: .sandbox, locale: "fi-FI"), at: 200) == false)
        let device = try #require(try await store.device(token))
        #expect(device.createdAt == 100)
        #expect(device.registeredAt == 200)
        #expect(device.app == "fi.example.app")
        #expect(device.environment == .sandbox)
        #expect(device.locale == "fi-FI")
    }

    @Test("subscribe registers an unknown device and stores coordinate, box, name, unit, time")
    func subscribeStoresEverything() async throws {
        let store = try open()
        let change = try await store.subscribe(token, to: try Self.helsinki(unit: .fahrenheit), at: 300)
        #expect(change.created)
        let stored = change.subscription
        #expect(stored.id > 0)
        #expect(stored.coordinate.latitude == 60.17)
        #expect(stored.coordinate.longitude == 24.94)
        #expect(stored.box.description == "60.15#24.95")
        #expect(stored.name.value == "Helsinki")
        #expect(stored.unit == .fahrenheit)
        #expect(stored.createdAt == 300)
        #expect(try await store.device(token)?.registeredAt == 300)
        #expect(try await store.subscriptions(of: token) == [stored])
    }

    @Test("the same point (to 1e-6°) and name does not create a second subscription")
    func duplicateSubscription() async throws {
        let store = try open()
        let first = try await store.subscribe(token, to: try Self.helsinki(), at: 1)
        let again = try await store.subscribe(token, to: try Self.helsinki(lat: 60.1700004, lon: 24.9399996), at: 2)
        #expect(!again.created)
        #expect(again.subscription.id == first.subscription.id)
        let otherName = try await store.subscribe(token, to: try Self.helsinki("Home"), at: 3)
        #expect(otherName.created)
        let otherPoint = try await store.subscribe(token, to: try Self.helsinki(lat: 60.170002), at: 4)
        #expect(otherPoint.created)
        #expect(try await store.subscriptions(of: token).count == 3)
    }

    @Test("unsubscribe by point and name removes only that subscription; nothing to remove is fine")
    func unsubscribeByPoint() async throws {
        let store = try open()
        _ = try await store.subscribe(token, to: try Self.helsinki(), at: 1)
        _ = try await store.subscribe(token, to: try Self.helsinki("Home"), at: 1)
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 60.1700001, longitude: 24.94), named: try PlaceName("Helsinki")) == 1)
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 60.17, longitude: 24.94), named: try PlaceName("Helsinki")) == 0)
        #expect(try await store.subscriptions(of: token).map(\.name.value) == ["Home"])
    }

    @Test("unsubscribe by id only touches the device's own subscriptions")
    func unsubscribeById() async throws {
        let store = try open()
        let other = try DeviceToken("ffffffffffffffff")
        let mine = try await store.subscribe(token, to: try Self.helsinki(), at: 1).subscription
        #expect(try await store.unsubscribe(other, id: mine.id) == false)
        #expect(try await store.unsubscribe(token, id: mine.id) == true)
        #expect(try await store.unsubscribe(token, id: mine.id) == false)
    }

    @Test("deleting a device removes its subscriptions too")
    func deleteDevice() async throws {
        let store = try open()
        _ = try await store.subscribe(token, to: try Self.helsinki(), at: 1)
        #expect(try await store.deleteDevice(token))
        #expect(try await store.device(token) == nil)
        #expect(try await store.subscriptions(of: token).isEmpty)
        #expect(try await store.deleteDevice(token) == false)
        let count = try await FrostboxDatabase(path: directory.databasePath).pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription")
        }
        #expect(count == 0)
    }

    @Test("the per-device subscription limit is enforced")
    func limit() async throws {
        let store = try open(limit: 2)
        _ = try await store.subscribe(token, to: try Self.helsinki("a"), at: 1)
        _ = try await store.subscribe(token, to: try Self.helsinki("b"), at: 1)
        await #expect(throws: StoreLimitError.self) { try await store.subscribe(token, to: try Self.helsinki("c"), at: 1) }
        // A duplicate of an existing one is still answered.
        #expect(try await store.subscribe(token, to: try Self.helsinki("a"), at: 1).created == false)
    }

    @Test("everything acknowledged survives closing and reopening the file")
    func persistence() async throws {
        do {
            let store = try open()
            _ = try await store.subscribe(token, to: try Self.helsinki(), at: 10)
            _ = try await store.subscribe(token, to: try Self.helsinki("Home", lat: -33.87, lon: 151.21), at: 11)
        }
        let reopened = try open()
        let list = try await reopened.subscriptions(of: token)
        #expect(list.map(\.name.value) == ["Helsinki", "Home"])
        #expect(list.map(\.box.description) == ["60.15#24.95", "-33.85#151.20"])
    }

    @Test("concurrent writes through the group committer all land, each exactly once")
    func concurrentWrites() async throws {
        let store = try open(limit: 1000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<300 {
                group.addTask {
                    let token = try DeviceToken(String(format: "%016x", i + 1))
                    _ = try await store.subscribe(token, to: try Self.helsinki("p\(i % 3)"), at: Int64(i))
                    _ = try await store.subscribe(token, to: try Self.helsinki("p\(i % 3)"), at: Int64(i))
                }
            }
            try await group.waitForAll()
        }
        let database = try FrostboxDatabase(path: directory.databasePath)
        let (devices, subscriptions) = try await database.pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM device")!, try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription")!)
        }
        #expect(devices == 300)
        #expect(subscriptions == 300)
    }

    @Test("a failing write rolls back alone; the others in its batch commit")
    func failingWriteIsolated() async throws {
        let database = try FrostboxDatabase(path: directory.databasePath)
        struct Boom: Error {}
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<50 {
                group.addTask {
                    do {
                        try await database.write { db in
                            try db.execute(
                                sql: "INSERT INTO device (token, created_at, registered_at) VALUES (?, 0, 0)", arguments: [String(format: "%016x", i)])
                            if i % 2 == 0 { throw Boom() }
                        }
                        return true
                    } catch is Boom {
                        return false
                    }
                }
            }
            var ok = 0
            for try await success in group where success { ok += 1 }
            #expect(ok == 25)
        }
        let count = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM device")! }
        #expect(count == 25)
    }

    @Test("the database is in WAL mode and migrated")
    func walAndMigrated() async throws {
        let database = try FrostboxDatabase(path: directory.databasePath)
        let mode = try await database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(try await database.isMigrated())
    }
}
