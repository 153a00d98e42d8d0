import FrostboxCore
import FrostboxDoubles
import FrostboxNotifier
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `NotifierStore` there is, with the way to put devices and subscriptions in front of
/// it (the SQLite store reads what the subscription store wrote; the double is seeded).
enum NotifierStoreImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    /// A fresh, empty store and its seeding.
    func make(in directory: TemporaryDirectory) async throws -> NotifierStoreUnderTest {
        switch self {
        case .postgres:
            let database = try await ContractPostgres.freshDatabase()
            return NotifierStoreUnderTest(
                store: PostgresNotifierStore(database: database, keptRuns: 2), seededThrough: PostgresSubscriptionStore(database: database))
        case .grdb:
            let database = try FrostboxDatabase(path: directory.databasePath)
            return NotifierStoreUnderTest(
                store: GRDBNotifierStore(database: database, keptRuns: 2), seededThrough: GRDBSubscriptionStore(database: database))
        case .inMemory:
            let store = InMemoryNotifierStore(keptRuns: 2)
            return NotifierStoreUnderTest(
                store: store,
                register: { token, time in store.register(token, at: time) },
                subscribe: { token, coordinate, name, time in
                    if !store.hasDevice(token) { store.register(token, at: time) }
                    store.subscribe(token, box: coordinate.box, name: name)
                })
        }
    }
}

/// A store with its seeding functions.
struct NotifierStoreUnderTest {
    let store: any NotifierStore
    /// Registers (or re-registers) a device at a time.
    let register: (DeviceToken, Int64) async throws -> Void
    /// Subscribes a device (registering it when unknown) to a place.
    let subscribe: (DeviceToken, Coordinate, String, Int64) async throws -> Void
}

extension NotifierStoreUnderTest {
    /// A database store, seeded through the subscription store of the same database.
    init(store: any NotifierStore, seededThrough subscriptions: any SubscriptionStore) {
        self.init(
            store: store,
            register: { token, time in try await subscriptions.register(DeviceRegistration(token: token), at: time) },
            subscribe: { token, coordinate, name, time in
                _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: coordinate, name: try PlaceName(name)), at: time)
            })
    }
}

@Suite("NotifierStore contract", .backgroundWorkScoped)
struct NotifierStoreContract {
    let directory: TemporaryDirectory
    let alice = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let bob = DeviceToken(trusted: "b0b00000000000000000000000000002")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let away = try! Coordinate(latitude: 61.5, longitude: 23.75)

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-notifier")
    }

    /// The planned entry of `token` for an event in the home box; its apns-id is the derived one.
    func entry(
        _ token: DeviceToken, night: LocalDate = LocalDate(year: 2026, month: 5, day: 12), level: FrostLevel = .freeze,
        kind: AlertKind = .frost, expiration: Int64? = 10_000
    ) -> OutboxEntry {
        let alert = PlannedAlert(
            token: token, app: "fi.example.app", environment: .sandbox,
            event: FrostEvent(box: home.box, night: night, level: level), kind: kind, places: ["Home", "Garden"], unit: .celsius,
            minimumC: -1.6, coldestAt: LocalDateTime(date: night.next, hour: 5), windowEnd: expiration ?? 10_000,
            relativeNight: .tonight)
        var notification = alert.notification()
        notification.expiration = expiration
        return OutboxEntry(event: alert.event, kind: kind, notification: notification, createdAt: 1_000)
    }

    @Test(
        "subscribed boxes come distinct, failing first (longest first), then never fetched, then by oldest success",
        arguments: NotifierStoreImplementation.available)
    func boxOrder(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        let coordinates = (0..<5).map { try! Coordinate(latitude: 10 + Double($0), longitude: 20) }
        for (i, c) in coordinates.enumerated() { try await subject.subscribe(alice, c, "P\(i)", 100) }
        try await subject.subscribe(bob, coordinates[0], "Again", 100)
        let keys = coordinates.map(\.box)
        try await store.recordFetches(succeeded: [keys[0]], failed: [keys[3]: "timeout"], at: 500)
        try await store.recordFetches(succeeded: [keys[1]], failed: [keys[2]: "left out", keys[3]: "timeout again"], at: 400)
        #expect(try await store.boxesToNotify() == [keys[2], keys[3], keys[4], keys[1], keys[0]])
        try await store.recordFetches(succeeded: [keys[2], keys[3]], failed: [:], at: 600)
        #expect(try await store.boxesToNotify() == [keys[4], keys[1], keys[0], keys[2], keys[3]])
    }

    @Test("places by box: each subscription of the box, with its device", arguments: NotifierStoreImplementation.available)
    func placesByBox(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(alice, home, "Garden", 100)
        try await subject.subscribe(bob, away, "Cabin", 100)
        let places = try await subject.store.places(in: [home.box, away.box])
        #expect(places[home.box]?.map(\.name).sorted() == ["Garden", "Home"])
        #expect(places[home.box]?.allSatisfy { $0.token == alice } == true)
        #expect(places[away.box]?.map(\.token) == [bob])
        #expect(try await subject.store.places(in: []).isEmpty)
    }

    @Test(
        "enqueue stores each (device, event) once, marks it alerted at once, and reads back the exact push",
        arguments: NotifierStoreImplementation.available)
    func enqueueOnce(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(bob, home, "Cabin", 100)
        let first = entry(alice)
        let stored = try await store.enqueue([first, entry(bob)], runID: nil)
        #expect(stored.map(\.token) == [alice, bob])
        #expect(stored.allSatisfy { $0.id > 0 })
        #expect(Set(stored.map(\.id)).count == 2)
        // The same event again: skipped; a higher level of it: stored.
        let again = try await store.enqueue([entry(alice), entry(alice, level: .hardFreeze, kind: .escalation)], runID: nil)
        #expect(again.map(\.event.level) == [.hardFreeze])
        let alerted = try await store.alertedEvents(in: [home.box], now: 0)[home.box] ?? []
        #expect(
            Set(alerted.map { "\($0.token.value.prefix(3)) \($0.event.level) \($0.kind.rawValue)" })
                == ["a11 freeze frost", "b0b freeze frost", "a11 hard-freeze escalation"])
        // Events whose window has ended are not returned.
        #expect(try await store.alertedEvents(in: [home.box], now: 10_000)[home.box] == nil)
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.count == 3)
        #expect(pending[0].notification == first.notification)
        #expect(pending[0].event == first.event)
        #expect(pending[0].kind == .frost)
        #expect(pending[0].createdAt == 1_000)
        #expect(try await store.lastOutboxID() == pending[2].id)
    }

    @Test("the same entries enqueued twice in one call are stored once", arguments: NotifierStoreImplementation.available)
    func enqueueDuplicateInOneCall(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(alice, home, "Home", 100)
        let stored = try await subject.store.enqueue([entry(alice), entry(alice)], runID: nil)
        #expect(stored.count == 1)
        #expect(try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10).count == 1)
    }

    @Test("an entry for a device that is gone is skipped, not an error", arguments: NotifierStoreImplementation.available)
    func enqueueForGoneDevice(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(alice, home, "Home", 100)
        #expect(try await subject.store.enqueue([entry(bob)], runID: nil).isEmpty)
        #expect(try await subject.store.alertedEvents(in: [home.box], now: 0).isEmpty)
    }

    @Test(
        "outcomes: delivered ends an entry; temporary and auth keep it pending with the attempt counted; permanent ends it",
        arguments: NotifierStoreImplementation.available)
    func outcomes(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(bob, home, "Cabin", 100)
        let stored = try await store.enqueue(
            [entry(alice), entry(bob), entry(alice, level: .hardFreeze), entry(bob, level: .hardFreeze)], runID: nil)
        try await store.record([
            (stored[0].id, .delivered(at: 2_000, messageID: stored[0].notification.messageID)),
            (stored[1].id, .failed(.temporary, reason: "503 ServiceUnavailable", at: 2_001)),
            (stored[2].id, .failed(.permanent, reason: "400 PayloadEmpty", at: 2_002)),
            (stored[3].id, .failed(.auth, reason: "403 InvalidProviderToken", at: 2_003)),
        ])
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.map(\.id) == [stored[1].id, stored[3].id])
        #expect(pending.map(\.attempts) == [1, 1])
        // The entry stays the same push: a resend is byte-identical.
        #expect(pending[0].notification == stored[1].notification)
    }

    @Test("an outcome for an entry no longer pending changes nothing", arguments: NotifierStoreImplementation.available)
    func recordOnlyPending(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        let stored = try await store.enqueue([entry(alice), entry(alice, level: .hardFreeze)], runID: nil)
        try await store.record(.delivered(at: 2_000, messageID: "x"), for: stored[0].id)
        try await store.record(.failed(.permanent, reason: "400 BadTopic", at: 2_000), for: stored[1].id)
        // A late temporary failure would make them pending again: the store must refuse it.
        try await store.record([(stored[0].id, .failed(.temporary, reason: "late", at: 3_000)), (stored[1].id, .failed(.temporary, reason: "late", at: 3_000))])
        try await store.record(.failed(.temporary, reason: "unknown id", at: 3_000), for: 999_999)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10).isEmpty)
    }

    @Test("pending pages: after, through and limit, by id", arguments: NotifierStoreImplementation.available)
    func paging(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        let nights = (0..<5).map { LocalDate(year: 2026, month: 5, day: 10 + $0) }
        let stored = try await store.enqueue(nights.map { entry(alice, night: $0) }, runID: nil)
        let ids = stored.map(\.id)
        #expect(ids == ids.sorted())
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 2).map(\.id) == Array(ids[0..<2]))
        #expect(try await store.pendingOutbox(after: ids[1], through: ids[3], limit: 10).map(\.id) == Array(ids[2...3]))
        #expect(try await store.lastOutboxID() == ids[4])
    }

    @Test(
        "pruning deletes the device with its outbox and alerted events, unless it registered after the cutoff",
        arguments: NotifierStoreImplementation.available)
    func pruning(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(bob, home, "Cabin", 100)
        _ = try await store.enqueue([entry(alice), entry(bob)], runID: nil)
        try await subject.register(bob, 300)
        #expect(try await store.pruneDevice(alice, registeredNoLaterThan: 200))
        #expect(try await store.pruneDevice(bob, registeredNoLaterThan: 200) == false)
        #expect(try await store.pruneDevice(alice, registeredNoLaterThan: 200) == false)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10).map(\.token) == [bob])
        #expect(try await store.alertedEvents(in: [home.box], now: 0)[home.box]?.map(\.token) == [bob])
        #expect(try await store.places(in: [home.box])[home.box]?.map(\.token) == [bob])
        // A pruned device that comes back is alerted afresh.
        try await subject.subscribe(alice, home, "Home", 400)
        #expect(try await store.enqueue([entry(alice)], runID: nil).count == 1)
    }

    @Test(
        "a run's summary written through the notifier's final write is stored although the task ending the run is cancelled",
        arguments: NotifierStoreImplementation.available)
    func finalWriteWhenCancelled(_ implementation: NotifierStoreImplementation) async throws {
        let store = try await implementation.make(in: directory).store
        let id = try await store.startRun(at: 10)
        var summary = NotifyRunSummary(id: id, startedAt: 10)
        summary.status = .interrupted
        summary.error = "cancelled"
        summary.finishedAt = 12
        summary.boxes = 3
        let ending = Task { [summary] in
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            try await FinalWrite.run { try await store.finishRun(summary) }
        }
        try await ending.value
        #expect(try await store.recentRuns(limit: 1) == [summary])
    }

    @Test(
        "runs: a run left running is marked interrupted; summaries round-trip; newest first",
        arguments: NotifierStoreImplementation.available)
    func runs(_ implementation: NotifierStoreImplementation) async throws {
        let store = try await implementation.make(in: directory).store
        let first = try await store.startRun(at: 10)
        let second = try await store.startRun(at: 20)
        var summary = NotifyRunSummary(id: second, startedAt: 20)
        summary.status = .degraded
        summary.finishedAt = 25
        summary.boxes = 7
        summary.forecastsCached = 3
        summary.forecastsFetched = 4
        summary.boxesFailed = 1
        summary.forecastRequests = 1
        summary.weightUsed = 4
        summary.verdicts = 8
        summary.alertsPlanned = 5
        summary.alertsDelivered = 3
        summary.boxesLeftOut = 2
        summary.alertsCarriedOver = 6
        summary.failed = [.temporary: 1, .permanent: 2, .invalidToken: 1, .auth: 3, .expired: 4]
        summary.tokensPruned = 1
        summary.byPlatform = PlatformDeliveries([.ios: .init(delivered: 2, failed: 7), .android: .init(delivered: 1, failed: 4)])
        summary.resendMilliseconds = 11
        summary.forecastMilliseconds = 12
        summary.planningMilliseconds = 13
        summary.storeMilliseconds = 14
        summary.deliveryMilliseconds = 15
        summary.durationMilliseconds = 1234
        summary.error = "2 boxes failed"
        try await store.finishRun(summary)
        let runs = try await store.recentRuns(limit: 10)
        #expect(runs.map(\.id) == [second, first])
        #expect(runs[0] == summary)
        #expect(runs[1].status == .interrupted)
        #expect(runs[1].finishedAt == 20)
        #expect(try await store.recentRuns(limit: 1).map(\.id) == [second])
    }

    @Test(
        "purge: finished entries whose push expired go with their alerted marks; pending ones, ones without an expiration, and fetch state of subscribed boxes stay",
        arguments: NotifierStoreImplementation.available)
    func purge(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        let stored = try await store.enqueue(
            [
                entry(alice, expiration: 1_000), entry(alice, level: .hardFreeze, expiration: 1_000),
                entry(alice, night: LocalDate(year: 2026, month: 5, day: 13), expiration: nil),
            ],
            runID: nil)
        try await store.record(.delivered(at: 900, messageID: "x"), for: stored[0].id)
        try await store.record(.delivered(at: 900, messageID: "y"), for: stored[2].id)
        try await store.recordFetches(succeeded: [home.box, away.box], failed: [:], at: 900)
        // One outbox entry (the delivered, expired one) and one fetch state (the box nobody subscribes to).
        #expect(try await store.purge(before: 2_000) == 2)
        #expect(try await store.pendingOutbox(after: 0, through: nil, limit: 10).map(\.id) == [stored[1].id])
        // The entry without an expiration keeps its event from being queued again.
        #expect(try await store.enqueue([entry(alice, night: LocalDate(year: 2026, month: 5, day: 13), expiration: nil)], runID: nil).isEmpty)
        // The purged one's event can be queued again.
        #expect(try await store.enqueue([entry(alice, expiration: 1_000)], runID: nil).count == 1)
        #expect(try await store.boxesToNotify() == [home.box])
    }

    @Test("purge keeps the newest runs and never one still running", arguments: NotifierStoreImplementation.available)
    func purgeRuns(_ implementation: NotifierStoreImplementation) async throws {
        let store = try await implementation.make(in: directory).store
        var ids: [Int64] = []
        for time in [10, 20, 30, 40] as [Int64] {
            let id = try await store.startRun(at: time)
            var summary = NotifyRunSummary(id: id, startedAt: time)
            summary.status = .completed
            summary.finishedAt = time + 1
            try await store.finishRun(summary)
            ids.append(id)
        }
        #expect(try await store.purge(before: 0) == 2)
        #expect(try await store.recentRuns(limit: 10).map(\.id) == [ids[3], ids[2]])
    }
}
