import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `SubscriptionStore` there is.
enum SubscriptionStoreImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    /// A fresh, empty store; `directory` holds whatever files it needs for the test's duration.
    func make(in directory: TemporaryDirectory, limit: Int = 50) async throws -> any SubscriptionStore {
        switch self {
        case .postgres:
            PostgresSubscriptionStore(database: try await ContractPostgres.freshDatabase(), maximumSubscriptionsPerDevice: limit)
        case .grdb:
            GRDBSubscriptionStore(
                database: try FrostboxDatabase(path: directory.databasePath), maximumSubscriptionsPerDevice: limit)
        case .inMemory:
            InMemorySubscriptionStore(maximumSubscriptionsPerDevice: limit)
        }
    }
}

@Suite("SubscriptionStore contract", .backgroundWorkScoped)
struct SubscriptionStoreContract {
    let directory: TemporaryDirectory
    let token: DeviceToken
    let other: DeviceToken

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-subscriptions")
        token = try DeviceToken("0123456789abcdef0123456789abcdef")
        other = try DeviceToken("fedcba9876543210fedcba9876543210")
    }

    static func place(
        _ name: String = "Helsinki", lat: Double = 60.17, lon: Double = 24.94, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default
    ) throws -> NewSubscription {
        NewSubscription(coordinate: try Coordinate(latitude: lat, longitude: lon), name: try PlaceName(name), unit: unit, settings: settings)
    }

    @Test(
        "register says whether the device was new; again it refreshes registeredAt and keeps createdAt",
        arguments: SubscriptionStoreImplementation.available)
    func registerIsIdempotent(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        #expect(try await store.register(DeviceRegistration(token: token), at: 100) == true)
        #expect(try await store.register(DeviceRegistration(token: token), at: 200) == false)
        let device = try #require(try await store.device(token))
        #expect(device.token == token)
        #expect(device.createdAt == 100)
        #expect(device.registeredAt == 200)
    }

    @Test(
        "facts a registration leaves out keep their stored values; given ones replace them",
        arguments: SubscriptionStoreImplementation.available)
    func registrationFactsMerge(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.register(DeviceRegistration(token: token, app: "fi.example.app", environment: .sandbox, locale: "fi-FI"), at: 1)
        try await store.register(DeviceRegistration(token: token), at: 2)
        var device = try #require(try await store.device(token))
        #expect(device.app == "fi.example.app")
        #expect(device.environment == .sandbox)
        #expect(device.locale == "fi-FI")
        try await store.register(DeviceRegistration(token: token, environment: .production, locale: "sv-FI"), at: 3)
        device = try #require(try await store.device(token))
        #expect(device.app == "fi.example.app")
        #expect(device.environment == .production)
        #expect(device.locale == "sv-FI")
    }

    @Test(
        "a name of the longest length a name may have, written with combining marks (200 code points, 100 characters), is stored as given",
        arguments: SubscriptionStoreImplementation.available)
    func longestName(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.register(DeviceRegistration(token: token), at: 1)
        let name = String(repeating: "e\u{301}", count: 100)
        _ = try await store.subscribe(token, to: try Self.place(name), at: 2)
        #expect(try await store.subscriptions(of: token).map(\.name.value) == [name])
    }

    @Test("a box has subscriptions while any device subscribes there", arguments: SubscriptionStoreImplementation.available)
    func boxHasSubscriptions(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let home = try Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(try await store.hasSubscriptions(in: home.box) == false)
        let change = try await store.subscribe(token, to: NewSubscription(coordinate: home, name: try PlaceName("Home")), at: 1)
        #expect(try await store.hasSubscriptions(in: home.box))
        #expect(try await store.hasSubscriptions(in: try Coordinate(latitude: 61.5, longitude: 23.75).box) == false)
        try await store.unsubscribe(token, id: change.subscription.id)
        #expect(try await store.hasSubscriptions(in: home.box) == false)
    }

    @Test("an unknown device is nil, not an error", arguments: SubscriptionStoreImplementation.available)
    func unknownDevice(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        #expect(try await store.device(token) == nil)
        #expect(try await store.subscriptions(of: token).isEmpty)
    }

    @Test(
        "subscribe registers an unknown device at that time and stores every field",
        arguments: SubscriptionStoreImplementation.available)
    func subscribeStoresEverything(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let settings = AlertSettings(rule: "legacy", frostRiskC: 2.5, freezeC: -0.5, hardFreezeC: -4, allClear: true)
        let change = try await store.subscribe(token, to: try Self.place(unit: .fahrenheit, settings: settings), at: 300)
        #expect(change.created)
        let stored = change.subscription
        #expect(stored.id > 0)
        #expect(stored.token == token)
        #expect(try Coordinate(latitude: 60.17, longitude: 24.94) == stored.coordinate)
        #expect(stored.box.description == "60.15#24.95")
        #expect(stored.name.value == "Helsinki")
        #expect(stored.unit == .fahrenheit)
        #expect(stored.createdAt == 300)
        #expect(stored.settings == settings)
        let device = try #require(try await store.device(token))
        #expect(device.createdAt == 300)
        #expect(device.registeredAt == 300)
        #expect(try await store.subscriptions(of: token) == [stored])
    }

    @Test(
        "subscribing does not count as registering: a known device keeps its registeredAt",
        arguments: SubscriptionStoreImplementation.available)
    func subscribeKeepsRegistration(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.register(DeviceRegistration(token: token, app: "fi.example.app"), at: 10)
        _ = try await store.subscribe(token, to: try Self.place(), at: 20)
        let device = try #require(try await store.device(token))
        #expect(device.registeredAt == 10)
        #expect(device.app == "fi.example.app")
    }

    @Test(
        "the same point (to 1e-6° on each axis) and name answers the stored subscription",
        arguments: SubscriptionStoreImplementation.available)
    func duplicates(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let first = try await store.subscribe(token, to: try Self.place(), at: 1)
        let again = try await store.subscribe(token, to: try Self.place(lat: 60.1700004, lon: 24.9399996, unit: .fahrenheit), at: 2)
        #expect(!again.created)
        #expect(again.subscription == first.subscription)
        #expect(try await store.subscribe(token, to: try Self.place("Home"), at: 3).created)
        #expect(try await store.subscribe(token, to: try Self.place(lat: 60.170002), at: 4).created)
        // Another device's identical subscription is its own.
        #expect(try await store.subscribe(other, to: try Self.place(), at: 5).created)
        #expect(try await store.subscriptions(of: token).count == 3)
    }

    @Test(
        "subscriptions lists one device's, oldest first, with ids in creation order",
        arguments: SubscriptionStoreImplementation.available)
    func listing(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let a = try await store.subscribe(token, to: try Self.place("a"), at: 5).subscription
        _ = try await store.subscribe(other, to: try Self.place("x"), at: 6)
        let b = try await store.subscribe(token, to: try Self.place("b", lat: -33.87, lon: 151.21), at: 4).subscription
        let c = try await store.subscribe(token, to: try Self.place("c"), at: 7).subscription
        #expect(a.id < b.id && b.id < c.id)
        #expect(try await store.subscriptions(of: token).map(\.name.value) == ["a", "b", "c"])
        #expect(try await store.subscriptions(of: other).map(\.name.value) == ["x"])
    }

    @Test(
        "unsubscribe by point and name removes that subscription only and says how many",
        arguments: SubscriptionStoreImplementation.available)
    func unsubscribeByPoint(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        _ = try await store.subscribe(token, to: try Self.place(), at: 1)
        _ = try await store.subscribe(token, to: try Self.place("Home"), at: 1)
        _ = try await store.subscribe(other, to: try Self.place(), at: 1)
        let helsinki = try PlaceName("Helsinki")
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 60.1700009, longitude: 24.94), named: helsinki) == 1)
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 60.17, longitude: 24.94), named: helsinki) == 0)
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 1, longitude: 1), named: helsinki) == 0)
        #expect(try await store.subscriptions(of: token).map(\.name.value) == ["Home"])
        #expect(try await store.subscriptions(of: other).count == 1)
    }

    @Test(
        "unsubscribe by id touches only the device's own subscription",
        arguments: SubscriptionStoreImplementation.available)
    func unsubscribeByID(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let mine = try await store.subscribe(token, to: try Self.place(), at: 1).subscription
        #expect(try await store.unsubscribe(other, id: mine.id) == false)
        #expect(try await store.subscriptions(of: token) == [mine])
        #expect(try await store.unsubscribe(token, id: mine.id) == true)
        #expect(try await store.unsubscribe(token, id: mine.id) == false)
        #expect(try await store.unsubscribe(token, id: 999_999) == false)
        #expect(try await store.subscriptions(of: token).isEmpty)
    }

    @Test(
        "deleting a device takes its subscriptions with it and leaves other devices alone",
        arguments: SubscriptionStoreImplementation.available)
    func deleteDevice(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        _ = try await store.subscribe(token, to: try Self.place(), at: 1)
        _ = try await store.subscribe(other, to: try Self.place(), at: 1)
        #expect(try await store.deleteDevice(token) == true)
        #expect(try await store.device(token) == nil)
        #expect(try await store.subscriptions(of: token).isEmpty)
        #expect(try await store.deleteDevice(token) == false)
        #expect(try await store.device(other) != nil)
        #expect(try await store.subscriptions(of: other).count == 1)
        // A device subscribing again after deletion starts afresh.
        let again = try await store.subscribe(token, to: try Self.place(), at: 9)
        #expect(again.created)
        #expect(try await store.device(token)?.createdAt == 9)
    }

    @Test(
        "the per-device limit refuses one more, still answers duplicates, and counts per device",
        arguments: SubscriptionStoreImplementation.available)
    func limit(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory, limit: 2)
        _ = try await store.subscribe(token, to: try Self.place("a"), at: 1)
        _ = try await store.subscribe(token, to: try Self.place("b"), at: 1)
        await #expect(throws: StoreLimitError.self) { try await store.subscribe(token, to: try Self.place("c"), at: 1) }
        #expect(try await store.subscriptions(of: token).map(\.name.value) == ["a", "b"])
        #expect(try await store.subscribe(token, to: try Self.place("a"), at: 2).created == false)
        #expect(try await store.subscribe(other, to: try Self.place("c"), at: 1).created)
        // Room freed by an unsubscribe can be used again.
        #expect(try await store.unsubscribe(token, at: try Coordinate(latitude: 60.17, longitude: 24.94), named: try PlaceName("b")) == 1)
        #expect(try await store.subscribe(token, to: try Self.place("c"), at: 3).created)
    }
}
