import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import GRDB
import Testing

@Suite("GRDBNotifierStore on a real SQLite file")
struct GRDBNotifierStoreTests {
    let directory: TemporaryDirectory
    let database: FrostboxDatabase
    let store: GRDBNotifierStore
    let subscriptions: GRDBSubscriptionStore
    let alice = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let bob = DeviceToken(trusted: "b0b00000000000000000000000000002")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let away = try! Coordinate(latitude: 61.5, longitude: 23.75)

    init() throws {
        directory = try TemporaryDirectory()
        database = try FrostboxDatabase(path: directory.databasePath)
        store = GRDBNotifierStore(database: database)
        subscriptions = GRDBSubscriptionStore(database: database)
    }

    func subscribe(
        _ token: DeviceToken, _ coordinate: Coordinate, _ name: String, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default,
        at time: Int64 = 100
    ) async throws {
        _ = try await subscriptions.subscribe(
            token, to: NewSubscription(coordinate: coordinate, name: try PlaceName(name), unit: unit, settings: settings), at: time)
    }

    func entry(
        _ token: DeviceToken, box: GeoBox? = nil, night: LocalDate = LocalDate(year: 2026, month: 5, day: 12), level: FrostLevel = .freeze,
        kind: AlertKind = .frost, messageID: String = UUID().uuidString, expiration: Int64 = 10_000
    ) -> OutboxEntry {
        let alert = PlannedAlert(
            token: token, app: "fi.example.app", environment: .sandbox,
            event: FrostEvent(box: box ?? home.box, night: night, level: level), kind: kind, places: ["Home", "Garden"], unit: .celsius,
            minimumC: -1.6, coldestAt: LocalDateTime(date: night.next, hour: 5), windowEnd: expiration, relativeNight: .tonight)
        return OutboxEntry(event: alert.event, kind: kind, notification: alert.notification(messageID: messageID), createdAt: 1_000)
    }

    @Test("places by box carry the subscription's name, unit, settings and the device's topic and environment")
    func placesByBox() async throws {
        try await subscriptions.register(DeviceRegistration(token: alice, app: "fi.example.app", environment: .sandbox), at: 50)
        try await subscribe(alice, home, "Home", unit: .fahrenheit, settings: AlertSettings(rule: "legacy", freezeC: -1, allClear: true))
        try await subscribe(alice, home, "Garden")
        try await subscribe(bob, away, "Cabin")
        let places = try await store.places(in: [home.box, away.box])
        let homes = try #require(places[home.box])
        #expect(homes.map(\.name) == ["Home", "Garden"])
        #expect(homes[0].unit == .fahrenheit)
        #expect(homes[0].settings == AlertSettings(rule: "legacy", freezeC: -1, allClear: true))
        #expect(homes[0].app == "fi.example.app")
        #expect(homes[0].environment == .sandbox)
        #expect(places[away.box]?.map(\.token) == [bob])
        #expect(try await store.places(in: []).isEmpty)
    }

    @Test("an entry carrying its device's key from the subscription read is stored for that device; a key now naming another device, or none, stores nothing")
    func entriesByDeviceKey() async throws {
        try await subscribe(alice, home, "Home")
        let key = try #require(try await store.places(in: [home.box])[home.box]?.first?.deviceKey)
        var first = entry(alice)
        first.deviceKey = key
        #expect(try await store.enqueue([first], runID: nil).count == 1)
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10, dueBy: 2_000)
        #expect(pending.map(\.token) == [alice])

        // Alice leaves and Bob registers: SQLite gives the freed highest key to Bob.
        #expect(try await subscriptions.deleteDevice(alice))
        try await subscribe(bob, home, "Home")
        #expect(try await store.places(in: [home.box])[home.box]?.first?.deviceKey == key)
        var stale = entry(alice, night: LocalDate(year: 2026, month: 5, day: 13))
        stale.deviceKey = key
        var gone = entry(alice, night: LocalDate(year: 2026, month: 5, day: 14))
        gone.deviceKey = key + 1_000
        #expect(try await store.enqueue([stale, gone], runID: nil).isEmpty)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10, dueBy: 2_000).isEmpty)
    }

    @Test("the schema refuses a second row for the same device and event, collapse ids over 64 bytes and a delivered row without its time")
    func schemaInvariants() async throws {
        try await subscribe(alice, home, "Home")
        _ = try await store.enqueue([entry(alice)], runID: nil)
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO outbox (device_id, box, night, level, kind, push_id, created_at, expires_at)
                        SELECT device_id, box, night, level, kind, push_id, created_at, expires_at FROM outbox
                        """)
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(sql: "UPDATE outbox_push SET collapse_id = ?", arguments: [String(repeating: "x", count: 65)])
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(sql: "UPDATE outbox SET status = 'delivered'")
            }
        }
    }

    @Test("devices that share a push share one stored payload; the planned apns-id is derived, not stored")
    func distinctPushesStoredOnce() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(bob, home, "Cabin")
        let planned = [alice, bob].map { token in
            var planned = entry(token)
            planned.notification.messageID = planned.event.messageID(for: token)
            return planned
        }
        let stored = try await store.enqueue(planned, runID: nil)
        #expect(stored.count == 2)
        let counts = try await database.pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_push") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE message_id IS NOT NULL") ?? -1
            )
        }
        #expect(counts.0 == 1)
        #expect(counts.1 == 0)
        let read = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(read.map(\.notification) == planned.map(\.notification))
    }

    @Test("an apns-id other than the derived one is kept with its row")
    func otherMessageIDKept() async throws {
        try await subscribe(alice, home, "Home")
        let planned = entry(alice, messageID: "00000000-0000-4000-8000-0000000000AB")
        _ = try await store.enqueue([planned], runID: nil)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 1).first?.notification.messageID == "00000000-0000-4000-8000-0000000000AB")
    }

    @Test("outcome columns: delivered stores time and apns-id; a failure keeps its class and reason")
    func outcomeColumns() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(bob, home, "Cabin")
        let stored = try await store.enqueue([entry(alice), entry(bob), entry(alice, level: .hardFreeze)], runID: nil)
        try await store.record([
            (stored[0].id, .delivered(at: 2_000, messageID: stored[0].notification.messageID)),
            (stored[1].id, .failed(.temporary, reason: "503 ServiceUnavailable", at: 2_001)),
            (stored[2].id, .failed(.permanent, reason: "400 PayloadEmpty", at: 2_002)),
        ])
        let rows = try database.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT status, attempts, delivered_at, delivered_message_id, failure_class, failure_reason, last_attempt_at FROM outbox ORDER BY id")
        }
        #expect(rows[0]["status"] == "delivered")
        #expect(rows[0]["delivered_at"] == 2_000)
        #expect(rows[0]["delivered_message_id"] == stored[0].notification.messageID)
        #expect(rows[1]["status"] == "pending")
        #expect(rows[1]["failure_reason"] == "503 ServiceUnavailable")
        #expect(rows[1]["last_attempt_at"] == 2_001)
        #expect(rows[2]["status"] == "failed")
        #expect(rows[2]["failure_class"] == "permanent")
        #expect(rows.map { $0["attempts"] as Int } == [1, 1, 1])
    }

    @Test("purge drops pushes no entry refers to and fetch state of boxes nobody subscribes to")
    func purgeTables() async throws {
        try await subscribe(alice, home, "Home")
        let stored = try await store.enqueue([entry(alice, expiration: 1_000)], runID: nil)
        try await store.record(.delivered(at: 900, messageID: "x"), for: stored[0].id)
        try await store.recordFetches(succeeded: [home.box, away.box], failed: [:], at: 900)
        try await store.purge(before: 2_000)
        let left = try await database.pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_push") ?? -1, try Int64.fetchAll(db, sql: "SELECT box FROM box_fetch"))
        }
        #expect(left.0 == 0)
        #expect(left.1 == [home.box.key])
    }
}

@Suite("Outbox payload JSON")
struct OutboxPayloadJSONTests {
    @Test("the hand-written payload JSON decodes to an equal payload, quotes, control characters and all")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let database = try FrostboxDatabase(path: directory.databasePath)
        let store = GRDBNotifierStore(database: database)
        let token = DeviceToken(trusted: "c0ffee00000000000000000000000003")
        _ = try await GRDBSubscriptionStore(database: database).register(DeviceRegistration(token: token), at: 1)
        let content = AlertContent(
            title: "Frost \"warning\"", body: "Home\\Garden\n\t\u{1}: low −2 °C ✓", titleLocKey: "FROST_TITLE_FREEZE", bodyLocKey: "FROST_FREEZE_TONIGHT",
            bodyLocArgs: ["a", "", "ä\"b"], sound: "default", group: "frost-box-1#2", interruption: .timeSensitive,
            frost: FrostData(box: "60.15#24.95", night: "2026-05-12", level: "freeze", minimumC: -1.6000000000000001))
        let notification = PushNotification(token: token, messageID: UUID().uuidString, collapseID: "c", expiration: 9, content: content)
        let entry = OutboxEntry(
            event: FrostEvent(box: GeoBox(latitudeIndex: 1, longitudeIndex: 2), night: LocalDate(year: 2026, month: 5, day: 12), level: .freeze), kind: .frost,
            notification: notification, createdAt: 1)
        _ = try await store.enqueue([entry], runID: nil)
        let read = try #require(try await store.pendingOutbox(after: 0, through: nil, limit: 1).first)
        #expect(read.notification == notification)
        let minimal = AlertContent()
        var bare = entry
        bare.event.level = .hardFreeze
        bare.notification.messageID = UUID().uuidString
        bare.notification.content = minimal
        _ = try await store.enqueue([bare], runID: nil)
        #expect(try await store.pendingOutbox(after: read.id, through: nil, limit: 1).first?.notification.content == minimal)
    }
}
