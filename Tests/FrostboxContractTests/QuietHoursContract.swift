import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import Testing

/// A notifier store with devices registered through a `DeviceRegistration` (quiet hours and
/// all), as each backend takes them.
struct QuietHoursSubject {
    let store: any NotifierStore
    let register: (DeviceRegistration, Int64) async throws -> Void
    let subscribe: (DeviceToken, Coordinate, String) async throws -> Void

    static func make(_ implementation: NotifierStoreImplementation, in directory: TemporaryDirectory) async throws -> QuietHoursSubject {
        switch implementation {
        case .postgres:
            let database = try await ContractPostgres.freshDatabase()
            return QuietHoursSubject(store: PostgresNotifierStore(database: database), through: PostgresSubscriptionStore(database: database))
        case .grdb:
            let database = try FrostboxDatabase(path: directory.databasePath)
            return QuietHoursSubject(store: GRDBNotifierStore(database: database), through: GRDBSubscriptionStore(database: database))
        case .inMemory:
            let store = InMemoryNotifierStore()
            return QuietHoursSubject(
                store: store,
                register: { registration, time in
                    guard case .set(let quiet) = registration.quietHours else { return store.register(registration.token, at: time) }
                    store.register(
                        registration.token, at: time, quietHours: quiet,
                        hardFreezeBreaksQuietHours: registration.hardFreezeBreaksQuietHours ?? false)
                },
                subscribe: { token, coordinate, name in store.subscribe(token, box: coordinate.box, name: name) })
        }
    }

    init(
        store: any NotifierStore, register: @escaping (DeviceRegistration, Int64) async throws -> Void,
        subscribe: @escaping (DeviceToken, Coordinate, String) async throws -> Void
    ) {
        self.store = store
        self.register = register
        self.subscribe = subscribe
    }

    init(store: any NotifierStore, through subscriptions: any SubscriptionStore) {
        self.init(
            store: store,
            register: { registration, time in try await subscriptions.register(registration, at: time) },
            subscribe: { token, coordinate, name in
                _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: coordinate, name: try PlaceName(name)), at: 100)
            })
    }
}

@Suite("Quiet hours contract (NotifierStore, SubscriptionStore)", .backgroundWorkScoped)
struct QuietHoursContract {
    let directory: TemporaryDirectory
    let alice = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let night = LocalDate(year: 2026, month: 5, day: 12)
    let quiet = QuietHours(startMinute: 22 * 60, endMinute: 7 * 60)!

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-quiet")
    }

    func entry(level: FrostLevel = .freeze, kind: AlertKind = .frost, notBefore: Int64? = 5_000, frostStartsAt: Int64? = 7_000) -> OutboxEntry {
        let alert = PlannedAlert(
            token: alice, event: FrostEvent(box: home.box, night: night, level: level), kind: kind, places: ["Home"], unit: .celsius,
            minimumC: -1, coldestAt: nil, windowEnd: 10_000, relativeNight: .tonight)
        return OutboxEntry(
            event: alert.event, kind: kind, notification: alert.notification(), createdAt: 1_000, notBefore: notBefore,
            frostStartsAt: kind == .allClear ? nil : frostStartsAt)
    }

    @Test("a device's quiet hours and break-through reach planning with its places", arguments: NotifierStoreImplementation.available)
    func placesCarryQuietHours(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await QuietHoursSubject.make(implementation, in: directory)
        var registration = DeviceRegistration(token: alice)
        registration.quietHours = .set(quiet)
        registration.hardFreezeBreaksQuietHours = true
        try await subject.register(registration, 100)
        try await subject.subscribe(alice, home, "Home")
        let place = try #require(try await subject.store.places(in: [home.box])[home.box]?.first)
        #expect(place.quietHours == quiet)
        #expect(place.hardFreezeBreaksQuietHours)
    }

    @Test(
        "a held entry is not due before its time, is due after, and reads back with its hold and frost start",
        arguments: NotifierStoreImplementation.available)
    func heldUntilDue(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await QuietHoursSubject.make(implementation, in: directory)
        try await subject.subscribe(alice, home, "Home")
        let stored = try await subject.store.enqueue([entry()], runID: nil)
        #expect(stored.count == 1)
        #expect(try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10, dueBy: 4_999).isEmpty)
        let due = try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10, dueBy: 5_000)
        #expect(due.map(\.id) == stored.map(\.id))
        #expect(due.first?.notBefore == 5_000)
        #expect(due.first?.frostStartsAt == 7_000)
        // Held, it still marks its event alerted (planning does not plan it again), as never sent.
        #expect(try await subject.store.alertedEvents(in: [home.box], now: 2_000)[home.box]?.map(\.neverSent) == [true])
        try await subject.store.record(.failed(.temporary, reason: "503", at: 5_000), for: stored[0].id)
        #expect(try await subject.store.alertedEvents(in: [home.box], now: 2_000)[home.box]?.map(\.neverSent) == [false])
    }

    @Test(
        "an escalation ends the held alert of the same night and stays; a frost entry ends nothing",
        arguments: NotifierStoreImplementation.available)
    func escalationReplacesHeld(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await QuietHoursSubject.make(implementation, in: directory)
        try await subject.subscribe(alice, home, "Home")
        let held = try await subject.store.enqueue([entry()], runID: nil)
        let other = entry(notBefore: nil)
        var otherNight = other
        otherNight.event.night = night.next
        #expect(try await subject.store.enqueue([otherNight], runID: nil).count == 1)
        let escalation = try await subject.store.enqueue([entry(level: .hardFreeze, kind: .escalation)], runID: nil)
        #expect(escalation.map(\.event.level) == [.hardFreeze])
        let pending = try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(!pending.map(\.id).contains(held[0].id))
        #expect(pending.map(\.event.level) == [.freeze, .hardFreeze])
    }

    @Test(
        "an all-clear for a held alert cancels both: neither is pending, the all-clear is not returned, it still marks the night",
        arguments: NotifierStoreImplementation.available)
    func allClearCancelsHeld(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await QuietHoursSubject.make(implementation, in: directory)
        try await subject.subscribe(alice, home, "Home")
        _ = try await subject.store.enqueue([entry()], runID: nil)
        let cleared = try await subject.store.enqueue([entry(level: .none, kind: .allClear, notBefore: nil)], runID: nil)
        #expect(cleared.isEmpty)
        #expect(try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10).isEmpty)
        let kinds = try await subject.store.alertedEvents(in: [home.box], now: 2_000)[home.box]?.map(\.kind) ?? []
        #expect(Set(kinds) == [.frost, .allClear])
    }

    @Test("an all-clear after an alert that was sent goes out as before", arguments: NotifierStoreImplementation.available)
    func allClearAfterSent(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await QuietHoursSubject.make(implementation, in: directory)
        try await subject.subscribe(alice, home, "Home")
        let sent = try await subject.store.enqueue([entry(notBefore: nil)], runID: nil)
        try await subject.store.record(.delivered(at: 1_500, messageID: sent[0].notification.messageID), for: sent[0].id)
        let cleared = try await subject.store.enqueue([entry(level: .none, kind: .allClear, notBefore: nil)], runID: nil)
        #expect(cleared.map(\.kind) == [.allClear])
    }

    @Test(
        "registration sets, keeps (absent) and clears (null) quiet hours and break-through",
        arguments: SubscriptionStoreImplementation.available)
    func registrationQuietHours(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        #expect(try await store.device(alice) == nil)
        var registration = DeviceRegistration(token: alice)
        try await store.register(registration, at: 100)
        #expect(try await store.device(alice)?.quietHours == nil)
        #expect(try await store.device(alice)?.hardFreezeBreaksQuietHours == false)
        registration.quietHours = .set(quiet)
        registration.hardFreezeBreaksQuietHours = true
        try await store.register(registration, at: 200)
        #expect(try await store.device(alice)?.quietHours == quiet)
        #expect(try await store.device(alice)?.hardFreezeBreaksQuietHours == true)
        try await store.register(DeviceRegistration(token: alice), at: 300)
        #expect(try await store.device(alice)?.quietHours == quiet)
        #expect(try await store.device(alice)?.hardFreezeBreaksQuietHours == true)
        registration.quietHours = .clear
        registration.hardFreezeBreaksQuietHours = false
        try await store.register(registration, at: 400)
        #expect(try await store.device(alice)?.quietHours == nil)
        #expect(try await store.device(alice)?.hardFreezeBreaksQuietHours == false)
        // A new device registered with quiet hours has them from the start.
        var other = DeviceRegistration(token: DeviceToken(trusted: "b0b00000000000000000000000000002"))
        other.quietHours = .set(quiet)
        try await store.register(other, at: 500)
        #expect(try await store.device(other.token)?.quietHours == quiet)
    }
}
