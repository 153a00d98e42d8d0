import FrostboxDoubles
import FrostboxCore
import FrostboxSQLite
import Foundation
import GRDB
import Testing

@Suite("GRDBNotifierStore on a real SQLite file")
struct GRDBNotifierStoreTests {
    let directory: TemporaryDirectory
    let database: FrostboxDatabase
    let store: GRDBNotifierStore
    let subscriptions: GRDBSubscriptionStore
    let alice = DeviceToken(trustedHex: "a11ce000000000000000000000000001")
    let bob = DeviceToken(trustedHex: "b0b00000000000000000000000000002")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let away = try! Coordinate(latitude: 61.5, longitude: 23.75)

    init() throws {
        directory = try TemporaryDirectory()
        database = try FrostboxDatabase(path: directory.databasePath)
        store = GRDBNotifierStore(database: database)
        subscriptions = GRDBSubscriptionStore(database: database)
    }

    func subscribe(_ token: DeviceToken, _ coordinate: Coordinate, _ name: String, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default, at time: Int64 = 100) async throws {
        _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: coordinate, name: try PlaceName(name), unit: unit, settings: settings), at: time)
    }

    func entry(_ token: DeviceToken, night: LocalDate = LocalDate(year: 2026, month: 5, day: 12), level: FrostLevel = .freeze, kind: AlertKind = .frost, apnsID: String = UUID().uuidString, expiration: Int64 = 10_000) -> OutboxEntry {
        let alert = PlannedAlert(
            token: token, topic: "fi.example.app", environment: .sandbox,
            event: FrostEvent(box: home.box, night: night, level: level), kind: kind, places: ["Home", "Garden"], unit: .celsius,
            minimumC: -1.6, coldestAt: LocalDateTime(date: night.next, hour: 5), windowEnd: expiration, relativeNight: .tonight)
        return OutboxEntry(event: alert.event, kind: kind, notification: alert.notification(apnsID: apnsID), createdAt: 1_000)
    }

    @Test("subscribed boxes come distinct, failing first (longest failing first), then never fetched, then by oldest success")
    func boxOrder() async throws {
        let boxes = (0..<5).map { try! Coordinate(latitude: 10 + Double($0), longitude: 20) }
        for (i, c) in boxes.enumerated() { try await subscribe(alice, c, "P\(i)") }
        try await subscribe(bob, boxes[0], "Again")
        let keys = boxes.map(\.box)
        try await store.recordFetches(succeeded: [keys[0]], failed: [keys[3]: "timeout"], at: 500)
        try await store.recordFetches(succeeded: [keys[1]], failed: [keys[2]: "left out: quota budget spent", keys[3]: "timeout again"], at: 400)
        #expect(try await store.boxesToNotify() == [keys[2], keys[3], keys[4], keys[1], keys[0]])
        // Failing since 500 for box 3 is kept while it keeps failing; a success clears it.
        try await store.recordFetches(succeeded: [keys[2], keys[3]], failed: [:], at: 600)
        #expect(try await store.boxesToNotify() == [keys[4], keys[1], keys[0], keys[2], keys[3]])
    }

    @Test("places by box carry the subscription's name, unit, settings and the device's topic and environment")
    func placesByBox() async throws {
        try await subscriptions.register(DeviceRegistration(token: alice, topic: "fi.example.app", environment: .sandbox), at: 50)
        try await subscribe(alice, home, "Home", unit: .fahrenheit, settings: AlertSettings(rule: "legacy", freezeC: -1, allClear: true))
        try await subscribe(alice, home, "Garden")
        try await subscribe(bob, away, "Cabin")
        let places = try await store.places(in: [home.box, away.box])
        let homes = try #require(places[home.box])
        #expect(homes.map(\.name) == ["Home", "Garden"])
        #expect(homes[0].unit == .fahrenheit)
        #expect(homes[0].settings == AlertSettings(rule: "legacy", freezeC: -1, allClear: true))
        #expect(homes[0].topic == "fi.example.app")
        #expect(homes[0].environment == .sandbox)
        #expect(places[away.box]?.map(\.token) == [bob])
        #expect(try await store.places(in: []).isEmpty)
    }

    @Test("enqueue stores each (device, event) once and marks it alerted in the same transaction")
    func enqueueOnce() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(bob, home, "Cabin")
        let first = entry(alice)
        let stored = try await store.enqueue([first, entry(bob)], runID: nil)
        #expect(stored.map(\.token) == [alice, bob])
        #expect(stored.allSatisfy { $0.id > 0 })
        // The same event again (a new apns-id): skipped; a higher level: stored.
        let again = try await store.enqueue([entry(alice), entry(alice, level: .hardFreeze, kind: .escalation)], runID: nil)
        #expect(again.map(\.event.level) == [.hardFreeze])
        let alerted = try await store.alertedEvents(in: [home.box], now: 0)[home.box] ?? []
        #expect(Set(alerted.map { "\($0.token.hex.prefix(3)) \($0.event.level) \($0.kind.rawValue)" })
            == ["a11 freeze frost", "b0b freeze frost", "a11 hard-freeze escalation"])
        // Events whose window has ended are not returned.
        #expect(try await store.alertedEvents(in: [home.box], now: 10_000)[home.box] == nil)
        // The pending entry reads back as the exact push that was planned.
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.count == 3)
        #expect(pending[0].notification == first.notification)
        #expect(pending[0].event == first.event)
        #expect(try await store.lastOutboxID() == pending[2].id)
    }

    @Test("an entry for a device deleted meanwhile is skipped, not an error")
    func enqueueForGoneDevice() async throws {
        try await subscribe(alice, home, "Home")
        #expect(try await store.enqueue([entry(bob)], runID: nil).isEmpty)
        #expect(try await store.alertedEvents(in: [home.box], now: 0).isEmpty)
    }

    @Test("the schema refuses a second outbox row for the same device and event, and collapse ids over 64 bytes")
    func schemaInvariants() async throws {
        try await subscribe(alice, home, "Home")
        _ = try await store.enqueue([entry(alice)], runID: nil)
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(sql: "INSERT INTO outbox (token, box, night, level, kind, apns_id, push_type, priority, payload, created_at) SELECT token, box, night, level, kind, ?, push_type, priority, payload, created_at FROM outbox", arguments: [UUID().uuidString])
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(sql: "UPDATE outbox SET collapse_id = ?", arguments: [String(repeating: "x", count: 65)])
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await database.pool.write { db in
                try db.execute(sql: "UPDATE outbox SET status = 'delivered'")
            }
        }
    }

    @Test("outcomes: delivered stores time and apns-id; temporary stays pending with its reason; permanent ends it")
    func outcomes() async throws {
        try await subscribe(alice, home, "Home")
        try await subscribe(bob, home, "Cabin")
        let stored = try await store.enqueue([entry(alice), entry(bob), entry(alice, level: .hardFreeze)], runID: nil)
        try await store.record(.delivered(at: 2_000, apnsID: stored[0].notification.apnsID), for: stored[0].id)
        try await store.record(.failed(.temporary, reason: "503 ServiceUnavailable", at: 2_001), for: stored[1].id)
        try await store.record(.failed(.permanent, reason: "400 PayloadEmpty", at: 2_002), for: stored[2].id)
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.map(\.id) == [stored[1].id])
        #expect(pending[0].attempts == 1)
        let rows = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT status, delivered_at, delivered_apns_id, failure_class, failure_reason FROM outbox ORDER BY id")
        }
        #expect(rows[0]["status"] == "delivered")
        #expect(rows[0]["delivered_at"] == 2_000)
        #expect(rows[0]["delivered_apns_id"] == stored[0].notification.apnsID)
        #expect(rows[1]["failure_reason"] == "503 ServiceUnavailable")
        #expect(rows[2]["status"] == "failed")
        #expect(rows[2]["failure_class"] == "permanent")
        // A delivered entry is never touched again.
        try await store.record(.failed(.temporary, reason: "late", at: 3_000), for: stored[0].id)
        #expect(try await database.pool.read { db in try String.fetchOne(db, sql: "SELECT status FROM outbox WHERE id = ?", arguments: [stored[0].id]) } == "delivered")
    }

    @Test("pending pages: after, through and limit")
    func paging() async throws {
        try await subscribe(alice, home, "Home")
        let nights = (0..<5).map { LocalDate(year: 2026, month: 5, day: 10 + $0) }
        let stored = try await store.enqueue(nights.map { entry(alice, night: $0) }, runID: nil)
        let ids = stored.map(\.id)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 2).map(\.id) == Array(ids[0..<2]))
        #expect(try await store.pendingOutbox(after: ids[1], through: ids[3], limit: 10).map(\.id) == Array(ids[2...3]))
    }

    @Test("pruning deletes the device with its subscriptions, outbox and alerted events, unless it registered after the cutoff")
    func pruning() async throws {
        try await subscribe(alice, home, "Home", at: 100)
        try await subscribe(bob, home, "Cabin", at: 100)
        _ = try await store.enqueue([entry(alice), entry(bob)], runID: nil)
        try await subscriptions.register(DeviceRegistration(token: bob), at: 300)
        #expect(try await store.pruneDevice(alice, registeredNoLaterThan: 200))
        #expect(try await store.pruneDevice(bob, registeredNoLaterThan: 200) == false)
        #expect(try await subscriptions.device(alice) == nil)
        #expect(try await subscriptions.subscriptions(of: alice).isEmpty)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10).map(\.token) == [bob])
        #expect(try await store.alertedEvents(in: [home.box], now: 0)[home.box]?.map(\.token) == [bob])
        #expect(try await subscriptions.device(bob) != nil)
    }

    @Test("runs: a run left running is marked interrupted; summaries round-trip; newest first")
    func runs() async throws {
        let first = try await store.startRun(at: 10)
        let second = try await store.startRun(at: 20)
        var summary = NotifyRunSummary(id: second, startedAt: 20)
        summary.status = .completed
        summary.finishedAt = 25
        summary.boxes = 7
        summary.forecastsCached = 3
        summary.forecastsFetched = 4
        summary.forecastRequests = 1
        summary.weightUsed = 4
        summary.verdicts = 8
        summary.alertsPlanned = 5
        summary.alertsDelivered = 3
        summary.failed = [.temporary: 1, .invalidToken: 1]
        summary.tokensPruned = 1
        summary.durationMilliseconds = 1234
        try await store.finishRun(summary)
        let runs = try await store.recentRuns(limit: 10)
        #expect(runs.map(\.id) == [second, first])
        #expect(runs[0] == summary)
        #expect(runs[1].status == .interrupted)
    }

    @Test("purge drops finished entries and events past retention and fetch state of boxes nobody subscribes to")
    func purge() async throws {
        try await subscribe(alice, home, "Home")
        let stored = try await store.enqueue([entry(alice, expiration: 1_000), entry(alice, level: .hardFreeze, expiration: 1_000)], runID: nil)
        try await store.record(.delivered(at: 900, apnsID: "x"), for: stored[0].id)
        try await store.recordFetches(succeeded: [home.box, away.box], failed: [:], at: 900)
        try await store.purge(before: 2_000)
        // The pending entry stays (delivery expires it); the delivered one and both events go.
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10).map(\.id) == [stored[1].id])
        #expect(try await store.alertedEvents(in: [home.box], now: 0).isEmpty)
        #expect(try await database.pool.read { db in try Int64.fetchAll(db, sql: "SELECT box FROM box_fetch") } == [home.box.key])
    }
}

@Suite("Outbox payload JSON")
struct OutboxPayloadJSONTests {
    @Test("the hand-written payload JSON decodes to an equal payload, quotes, control characters and all")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let database = try FrostboxDatabase(path: directory.databasePath)
        let store = GRDBNotifierStore(database: database)
        let token = DeviceToken(trustedHex: "c0ffee00000000000000000000000003")
        _ = try await GRDBSubscriptionStore(database: database).register(DeviceRegistration(token: token), at: 1)
        let payload = PushPayload(
            aps: APSPayload(
                alert: .init(title: "Frost \"warning\"", body: "Home\\Garden\n\t\u{1}: low −2 °C ✓", titleLocKey: "FROST_TITLE_FREEZE", locKey: "FROST_FREEZE_TONIGHT", locArgs: ["a", "", "ä\"b"]),
                sound: "default", threadID: "frost-box-1#2", interruptionLevel: "time-sensitive", contentAvailable: 1),
            frost: .init(box: "60.15#24.95", night: "2026-05-12", level: "freeze", minimumC: -1.6000000000000001))
        let notification = PushNotification(token: token, apnsID: UUID().uuidString, collapseID: "c", expiration: 9, payload: payload)
        let entry = OutboxEntry(event: FrostEvent(box: GeoBox(latitudeIndex: 1, longitudeIndex: 2), night: LocalDate(year: 2026, month: 5, day: 12), level: .freeze), kind: .frost, notification: notification, createdAt: 1)
        _ = try await store.enqueue([entry], runID: nil)
        let read = try #require(try await store.pendingOutbox(after: 0, through: nil, limit: 1).first)
        #expect(read.notification == notification)
        let minimal = PushPayload(aps: APSPayload())
        var bare = entry
        bare.event.level = .hardFreeze
        bare.notification.apnsID = UUID().uuidString
        bare.notification.payload = minimal
        _ = try await store.enqueue([bare], runID: nil)
        #expect(try await store.pendingOutbox(after: read.id, through: nil, limit: 1).first?.notification.payload == minimal)
    }
}
