import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import Testing

/// A notifier store that leaves out devices not yet proven real, with devices registered as
/// each backend takes them (a subscription with an unknown token registers one).
struct VerificationSubject {
    let store: any NotifierStore & DeviceVerificationStore
    let subscribe: (DeviceToken, Coordinate, Int64) async throws -> Void
    let device: (DeviceToken) async throws -> Device?
    /// The subscription store over the same database (nil for the in-memory double, whose
    /// subscription store is a separate one).
    var subscriptions: (any SubscriptionStore)?

    static func make(_ implementation: NotifierStoreImplementation, in directory: TemporaryDirectory) async throws -> VerificationSubject {
        switch implementation {
        case .postgres:
            let database = try await ContractPostgres.freshDatabase()
            return VerificationSubject(
                store: PostgresNotifierStore(database: database, verifiedDevicesOnly: true), through: PostgresSubscriptionStore(database: database))
        case .grdb:
            let database = try FrostboxDatabase(path: directory.databasePath)
            return VerificationSubject(
                store: GRDBNotifierStore(database: database, verifiedDevicesOnly: true), through: GRDBSubscriptionStore(database: database))
        case .inMemory:
            let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
            return VerificationSubject(
                store: store,
                subscribe: { token, coordinate, time in
                    if !store.hasDevice(token) { store.register(token, at: time, verified: false) }
                    store.subscribe(token, box: coordinate.box, name: "Home")
                },
                device: { token in
                    guard store.hasDevice(token) else { return nil }
                    var device = Device(token: token, createdAt: 0, registeredAt: 0)
                    device.verifiedAt = store.verifiedAt(token)
                    return device
                })
        }
    }

    init(
        store: any NotifierStore & DeviceVerificationStore, subscribe: @escaping (DeviceToken, Coordinate, Int64) async throws -> Void,
        device: @escaping (DeviceToken) async throws -> Device?
    ) {
        self.store = store
        self.subscribe = subscribe
        self.device = device
    }

    init(store: any NotifierStore & DeviceVerificationStore, through subscriptions: any SubscriptionStore) {
        self.init(
            store: store,
            subscribe: { token, coordinate, time in
                _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: coordinate, name: try PlaceName("Home")), at: time)
            },
            device: { token in try await subscriptions.device(token) })
        self.subscriptions = subscriptions
    }
}

@Suite("Device verification contract (NotifierStore, DeviceVerificationStore)", .backgroundWorkScoped)
struct DeviceVerificationContract {
    let directory: TemporaryDirectory
    let real = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let invented = DeviceToken(trusted: "bad0000000000000000000000000000b")
    let other = DeviceToken(trusted: "c0ffee00000000000000000000000003")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let away = try! Coordinate(latitude: 61.50, longitude: 23.76)

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-verification")
    }

    @Test("a new device is pending: its box is not asked for and it gets no alerts until verified", arguments: NotifierStoreImplementation.available)
    func pendingDevicesCostNothing(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await VerificationSubject.make(implementation, in: directory)
        try await subject.subscribe(real, home, 100)
        try await subject.subscribe(invented, away, 110)
        #expect(try await subject.device(real)?.verifiedAt == nil)
        #expect(try await subject.store.boxesToNotify().isEmpty)
        #expect(try await subject.store.places(in: [home.box, away.box]).isEmpty)
        #expect(try await subject.store.verificationCounts() == VerificationCounts(pendingDevices: 2, boxesAwaitingVerification: 2))

        try await subject.store.markVerified([real], at: 200)
        #expect(try await subject.device(real)?.verifiedAt == 200)
        #expect(try await subject.store.boxesToNotify() == [home.box])
        #expect(try await subject.store.places(in: [home.box, away.box])[home.box]?.map(\.token) == [real])
        #expect(try await subject.store.verificationCounts() == VerificationCounts(pendingDevices: 1, boxesAwaitingVerification: 1))

        // A pending device in a box a verified device opened is stored but not alerted.
        try await subject.subscribe(other, home, 120)
        #expect(try await subject.store.places(in: [home.box])[home.box]?.map(\.token) == [real])
        #expect(try await subject.store.boxesToNotify() == [home.box])

        // Verifying again changes nothing; an unknown token is ignored.
        try await subject.store.markVerified([real, DeviceToken(trusted: "dead00000000000000000000000000ff")], at: 900)
        #expect(try await subject.device(real)?.verifiedAt == 200)
    }

    @Test("pending devices page by token, list oldest first and purge by age, verified ones untouched", arguments: NotifierStoreImplementation.available)
    func pagingAndPurge(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await VerificationSubject.make(implementation, in: directory)
        try await subject.subscribe(other, home, 300)
        try await subject.subscribe(invented, away, 100)
        try await subject.subscribe(real, home, 200)
        try await subject.store.markVerified([real], at: 250)

        let first = try await subject.store.pendingDevices(after: nil, limit: 1)
        #expect(first.map(\.token) == [invented])
        #expect(first.first?.createdAt == 100)
        #expect(first.first?.platform == .ios)
        let second = try await subject.store.pendingDevices(after: first.last?.token, limit: 1)
        #expect(second.map(\.token) == [other])
        #expect(try await subject.store.pendingDevices(after: second.last?.token, limit: 1).isEmpty)

        #expect(try await subject.store.pendingDevices(createdBefore: 1_000, limit: 10).map(\.token) == [invented, other])
        #expect(try await subject.store.pendingDevices(createdBefore: 300, limit: 10).map(\.token) == [invented])

        #expect(try await subject.store.purgePendingDevices(createdBefore: 300) == 1)
        #expect(try await subject.device(invented) == nil)
        #expect(try await subject.device(other) != nil)
        #expect(try await subject.store.purgePendingDevices(createdBefore: 10_000) == 1)
        #expect(try await subject.device(real)?.verifiedAt == 250)
        #expect(try await subject.store.verificationCounts() == VerificationCounts(pendingDevices: 0, boxesAwaitingVerification: 0))
    }
}
