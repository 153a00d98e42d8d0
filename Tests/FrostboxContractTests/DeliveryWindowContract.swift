import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import Testing

/// Per-subscription delivery windows, as each backend stores them and hands them to planning.
@Suite("Delivery window contract (SubscriptionStore, NotifierStore)", .backgroundWorkScoped)
struct DeliveryWindowContract {
    let directory: TemporaryDirectory
    let alice = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)
    let field = try! Coordinate(latitude: 60.171, longitude: 24.941)
    let evening = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: 22 * 60)!
    let overnight = DeliveryWindow(afterMinute: 22 * 60, beforeMinute: 8 * 60)!

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-windows")
    }

    func new(_ coordinate: Coordinate, _ name: String, _ window: DeliveryWindow?) throws -> NewSubscription {
        NewSubscription(coordinate: coordinate, name: try PlaceName(name), settings: AlertSettings(allClear: true, window: window))
    }

    @Test(
        "a subscription keeps its window (both bounds, one, none) as stored, read back and listed; a repeated subscribe returns it unchanged",
        arguments: SubscriptionStoreImplementation.available)
    func storedAndRead(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let afterOnly = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: nil)!
        let beforeOnly = DeliveryWindow(afterMinute: nil, beforeMinute: 9 * 60)!
        let windows: [DeliveryWindow?] = [overnight, afterOnly, beforeOnly, nil]
        for (index, window) in windows.enumerated() {
            let change = try await store.subscribe(alice, to: try new(home, "Place \(index)", window), at: 100)
            #expect(change.created)
            #expect(change.subscription.settings.window == window)
            #expect(change.subscription.settings.allClear)
        }
        #expect(try await store.subscriptions(of: alice).map(\.settings.window) == windows)
        let again = try await store.subscribe(alice, to: try new(home, "Place 0", evening), at: 200)
        #expect(!again.created)
        #expect(again.subscription.settings.window == overnight)
    }

    @Test(
        "planning gets each subscription's window with its place, beside the device's quiet hours",
        arguments: NotifierStoreImplementation.available)
    func placesCarryWindows(_ implementation: NotifierStoreImplementation) async throws {
        let quiet = QuietHours(startMinute: 23 * 60, endMinute: 6 * 60)!
        let (store, subscribe) = try await Self.subject(implementation, in: directory, quiet: quiet, token: alice)
        try await subscribe(try new(home, "Home", evening))
        try await subscribe(try new(field, "Field", nil))
        let places = try #require(try await store.places(in: [home.box])[home.box])
        #expect(places.map(\.name) == ["Home", "Field"])
        #expect(places.map(\.settings.window) == [evening, nil])
        #expect(places.map(\.quietHours) == [quiet, quiet])
    }

    @Test(
        "a subscription keeps its min_probability (0.7, 0, none) as stored, listed and handed to planning",
        arguments: NotifierStoreImplementation.available)
    func minProbability(_ implementation: NotifierStoreImplementation) async throws {
        let quiet = QuietHours(startMinute: 23 * 60, endMinute: 6 * 60)!
        let (store, subscribe) = try await Self.subject(implementation, in: directory, quiet: quiet, token: alice)
        for (name, chance) in [("Home", 0.7), ("Shed", 0), ("Field", nil)] as [(String, Double?)] {
            try await subscribe(NewSubscription(coordinate: home, name: try PlaceName(name), settings: AlertSettings(minProbability: chance)))
        }
        let places = try #require(try await store.places(in: [home.box])[home.box])
        #expect(places.map(\.settings.minProbability) == [0.7, 0, nil])
    }

    /// A notifier store, its device registered with `quiet`, and how to subscribe it.
    static func subject(
        _ implementation: NotifierStoreImplementation, in directory: TemporaryDirectory, quiet: QuietHours, token: DeviceToken
    ) async throws -> (any NotifierStore, (NewSubscription) async throws -> Void) {
        var registration = DeviceRegistration(token: token)
        registration.quietHours = .set(quiet)
        let subscriptions: any SubscriptionStore
        let store: any NotifierStore
        switch implementation {
        case .postgres:
            let database = try await ContractPostgres.freshDatabase()
            (store, subscriptions) = (PostgresNotifierStore(database: database), PostgresSubscriptionStore(database: database))
        case .grdb:
            let database = try FrostboxDatabase(path: directory.databasePath)
            (store, subscriptions) = (GRDBNotifierStore(database: database), GRDBSubscriptionStore(database: database))
        case .inMemory:
            let memory = InMemoryNotifierStore()
            memory.register(token, at: 100, quietHours: quiet)
            return (memory, { new in memory.subscribe(token, box: new.coordinate.box, name: new.name.value, settings: new.settings) })
        }
        try await subscriptions.register(registration, at: 100)
        return (store, { new in _ = try await subscriptions.subscribe(token, to: new, at: 100) })
    }
}
