import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `ForecastCache` there is.
enum ForecastCacheImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    /// A fresh, empty cache; `directory` holds whatever files it needs for the test's duration.
    func make(in directory: TemporaryDirectory) async throws -> any ForecastCache {
        switch self {
        case .postgres: PostgresForecastCache(database: try await ContractPostgres.freshDatabase())
        case .grdb: GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
        case .inMemory: InMemoryForecastCache()
        }
    }

    /// A fresh cache and the subscription store of the same database (whose subscriptions
    /// decide which boxes are still wanted).
    func makeWithSubscriptions(in directory: TemporaryDirectory) async throws -> (any ForecastCache, any SubscriptionStore) {
        switch self {
        case .postgres:
            let database = try await ContractPostgres.freshDatabase()
            return (PostgresForecastCache(database: database), PostgresSubscriptionStore(database: database))
        case .grdb:
            let database = try FrostboxDatabase(path: directory.databasePath)
            return (GRDBForecastCache(database: database), GRDBSubscriptionStore(database: database))
        case .inMemory:
            let subscriptions = InMemorySubscriptionStore()
            return (InMemoryForecastCache(subscribedBoxes: { subscriptions.subscribedBoxes }), subscriptions)
        }
    }
}

@Suite("ForecastCache contract", .backgroundWorkScoped)
struct ForecastCacheContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-forecasts")
    }

    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let equator = Coordinate(uncheckedLatitude: 0, longitude: 10).box
    static let antimeridian = Coordinate(uncheckedLatitude: -16.5, longitude: -179.99).box

    /// A forecast over Helsinki's spring DST change, with missing values (the source reports
    /// one decimal; the series holds tenths and quarters).
    static func forecast(_ box: GeoBox, fetchedAt: Int64, hours: Int = 48) -> BoxForecast {
        let start: Int64 = 1_743_199_200
        let series = (0..<hours).map { i in
            let time = start + Int64(i) * 3_600
            let offset: Int64 = time >= 1_743_296_400 ? 10_800 : 7_200
            return ForecastHour(
                time: time, local: LocalDateTime(wallClockSeconds: time + offset),
                temperatureC: i % 5 == 0 ? nil : Double(i - 20) / 10, dewPointC: i % 7 == 0 ? nil : -4.25,
                cloudCoverPercent: Double(i % 100), windSpeedKmh: 12.6)
        }
        return BoxForecast(
            box: box, timezone: "Europe/Helsinki", utcOffsetSeconds: 7_200, gridLatitude: 60.2, gridLongitude: 25.0,
            elevation: 21, fetchedAt: fetchedAt, hours: series)
    }

    @Test("a stored forecast comes back whole under its box", arguments: ForecastCacheImplementation.available)
    func roundTrip(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        var noElevation = Self.forecast(Self.antimeridian, fetchedAt: 1_000, hours: 3)
        noElevation.elevation = nil
        let stored = [Self.forecast(Self.helsinki, fetchedAt: 1_000), noElevation]
        try await cache.store(stored)
        let found = try await cache.forecasts(for: [Self.helsinki, Self.antimeridian], fetchedSince: 0)
        #expect(found == [Self.helsinki: stored[0], Self.antimeridian: noElevation])
    }

    @Test("a forecast keeps the model runs it came from; replaced, it keeps the new ones; none is none", arguments: ForecastCacheImplementation.available)
    func modelRuns(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        var withRuns = Self.forecast(Self.helsinki, fetchedAt: 1_000, hours: 2)
        withRuns.runs = [
            ModelRun(model: "icon_d2", initialisedAt: 1_774_000_800, availableAt: 1_774_004_000),
            ModelRun(model: "icon_eu", initialisedAt: 1_773_990_000, availableAt: 1_773_996_300),
        ]
        let without = Self.forecast(Self.equator, fetchedAt: 1_000, hours: 2)
        try await cache.store([withRuns, without])
        var found = try await cache.forecasts(for: [Self.helsinki, Self.equator], fetchedSince: 0)
        #expect(found[Self.helsinki]?.runs == withRuns.runs)
        #expect(found[Self.equator]?.runs == [])
        var newer = withRuns
        newer.fetchedAt = 2_000
        newer.runs = [ModelRun(model: "icon_d2", initialisedAt: 1_774_011_600, availableAt: 1_774_014_900)]
        try await cache.store([newer])
        found = try await cache.forecasts(for: [Self.helsinki], fetchedSince: 0)
        #expect(found[Self.helsinki]?.runs == newer.runs)
    }

    @Test("an empty cache, an empty question and unknown boxes answer nothing", arguments: ForecastCacheImplementation.available)
    func nothing(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        #expect(try await cache.forecasts(for: [Self.helsinki], fetchedSince: 0).isEmpty)
        try await cache.store([])
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 1)])
        #expect(try await cache.forecasts(for: [], fetchedSince: 0).isEmpty)
        #expect(try await cache.forecasts(for: [Self.equator], fetchedSince: 0).isEmpty)
        #expect(try await cache.purge(fetchedBefore: 0) == 0)
    }

    @Test(
        "fetchedSince is inclusive: fetched at that second is served, a second earlier is not",
        arguments: ForecastCacheImplementation.available)
    func freshnessBoundary(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 10_000), Self.forecast(Self.equator, fetchedAt: 9_999)])
        let found = try await cache.forecasts(for: [Self.helsinki, Self.equator], fetchedSince: 10_000)
        #expect(Set(found.keys) == [Self.helsinki])
        let freshness = ForecastFreshness(ttlSeconds: 3_600)
        #expect(try await cache.forecasts(for: [Self.helsinki], fetchedSince: freshness.freshSince(now: 13_599)).count == 1)
        #expect(try await cache.forecasts(for: [Self.helsinki], fetchedSince: freshness.freshSince(now: 13_600)).isEmpty)
    }

    @Test("a box asked for twice is answered once", arguments: ForecastCacheImplementation.available)
    func repeatedBoxes(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 5)])
        let found = try await cache.forecasts(for: [Self.helsinki, Self.helsinki], fetchedSince: 0)
        #expect(found.count == 1)
    }

    @Test("storing a box again replaces its entry, older or newer", arguments: ForecastCacheImplementation.available)
    func replaces(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 100, hours: 10)])
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 200, hours: 20)])
        #expect(try await cache.forecasts(for: [Self.helsinki], fetchedSince: 0)[Self.helsinki]?.hours.count == 20)
        try await cache.store([Self.forecast(Self.helsinki, fetchedAt: 150, hours: 5)])
        let last = try await cache.forecasts(for: [Self.helsinki], fetchedSince: 0)[Self.helsinki]
        #expect(last?.fetchedAt == 150)
        #expect(last?.hours.count == 5)
    }

    @Test(
        "entries of boxes no subscription names any more are purged in batches of at most the limit; subscribed boxes stay",
        arguments: ForecastCacheImplementation.available)
    func purgeUnsubscribed(_ implementation: ForecastCacheImplementation) async throws {
        let (cache, subscriptions) = try await implementation.makeWithSubscriptions(in: directory)
        let token = DeviceToken(trusted: String(repeating: "ab", count: 16))
        _ = try await subscriptions.register(DeviceRegistration(token: token), at: 10)
        for (latitude, longitude) in [(60.19, 25.01), (0.0, 10.0)] {
            let place = NewSubscription(coordinate: try Coordinate(latitude: latitude, longitude: longitude), name: try PlaceName("P"))
            _ = try await subscriptions.subscribe(token, to: place, at: 10)
        }
        try await cache.store([
            Self.forecast(Self.helsinki, fetchedAt: 100), Self.forecast(Self.equator, fetchedAt: 100),
            Self.forecast(Self.antimeridian, fetchedAt: 100),
        ])
        // The antimeridian box was never subscribed; the equator's subscriber leaves.
        #expect(try await subscriptions.unsubscribe(token, at: try Coordinate(latitude: 0, longitude: 10), named: try PlaceName("P")) == 1)
        #expect(try await cache.purgeUnsubscribed(limit: 1) == 1)
        #expect(try await cache.purgeUnsubscribed(limit: 1) == 1)
        #expect(try await cache.purgeUnsubscribed(limit: 1) == 0)
        let left = try await cache.forecasts(for: [Self.helsinki, Self.equator, Self.antimeridian], fetchedSince: 0)
        #expect(Set(left.keys) == [Self.helsinki])
    }

    @Test("purge drops entries fetched strictly before the cutoff and says how many", arguments: ForecastCacheImplementation.available)
    func purge(_ implementation: ForecastCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        try await cache.store([
            Self.forecast(Self.helsinki, fetchedAt: 100), Self.forecast(Self.equator, fetchedAt: 200),
            Self.forecast(Self.antimeridian, fetchedAt: 300),
        ])
        #expect(try await cache.purge(fetchedBefore: 200) == 1)
        #expect(try await cache.purge(fetchedBefore: 200) == 0)
        let left = try await cache.forecasts(for: [Self.helsinki, Self.equator, Self.antimeridian], fetchedSince: 0)
        #expect(Set(left.keys) == [Self.equator, Self.antimeridian])
        #expect(try await cache.purge(fetchedBefore: 1_000) == 2)
        #expect(try await cache.forecasts(for: [Self.equator, Self.antimeridian], fetchedSince: 0).isEmpty)
    }
}
