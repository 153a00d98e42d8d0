import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import Testing

@Suite("GRDBForecastCache on a real SQLite file")
struct GRDBForecastCacheTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static func forecast(_ box: GeoBox, fetchedAt: Int64, hours: Int = 72) -> BoxForecast {
        let start: Int64 = 1_743_199_200
        let series = (0..<hours).map { i in
            let time = start + Int64(i) * 3_600
            // +2 until 01:00 UTC on the 30th, +3 after (the Helsinki DST change).
            let offset: Int64 = time >= 1_743_296_400 ? 10_800 : 7_200
            return ForecastHour(
                time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: i % 5 == 0 ? nil : Double(i - 33) / 10,
                dewPointC: -4.25, cloudCoverPercent: Double(i % 100), windSpeedKmh: 12.6)
        }
        return BoxForecast(
            box: box, timezone: "Europe/Helsinki", utcOffsetSeconds: 7_200, gridLatitude: 60.2, gridLongitude: 25.0, elevation: 21,
            fetchedAt: fetchedAt, hours: series)
    }

    static let box = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box

    @Test("a stored forecast comes back whole: hours, local times across DST, grid cell, elevation, fetch time")
    func roundTrip() async throws {
        let cache = GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
        let stored = Self.forecast(Self.box, fetchedAt: 1_000)
        try await cache.store([stored])
        let found = try await cache.forecasts(for: [Self.box], fetchedSince: 0)
        #expect(found == [Self.box: stored])
    }

    @Test("only entries fetched within the TTL are served; a restart keeps them")
    func ttl() async throws {
        let other = Coordinate(uncheckedLatitude: 0, longitude: 10).box
        do {
            let cache = GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
            try await cache.store([Self.forecast(Self.box, fetchedAt: 10_000), Self.forecast(other, fetchedAt: 5_000)])
        }
        let cache = GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
        let freshness = ForecastFreshness(ttlSeconds: 3_600)
        let now: Int64 = 13_599
        let fresh = try await cache.forecasts(for: [Self.box, other], fetchedSince: freshness.freshSince(now: now))
        #expect(Set(fresh.keys) == [Self.box])
        #expect(try await cache.forecasts(for: [Self.box], fetchedSince: freshness.freshSince(now: 13_600)).isEmpty)
    }

    @Test("storing again replaces; purge drops old entries")
    func replaceAndPurge() async throws {
        let cache = GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
        try await cache.store([Self.forecast(Self.box, fetchedAt: 100, hours: 10)])
        try await cache.store([Self.forecast(Self.box, fetchedAt: 200, hours: 20)])
        #expect(try await cache.forecasts(for: [Self.box], fetchedSince: 0)[Self.box]?.hours.count == 20)
        #expect(try await cache.count() == 1)
        #expect(try await cache.purge(fetchedBefore: 201) == 1)
        #expect(try await cache.count() == 0)
    }

    @Test("many boxes are looked up in one call")
    func manyBoxes() async throws {
        let cache = GRDBForecastCache(database: try FrostboxDatabase(path: directory.databasePath))
        let boxes = (0..<1_500).map { GeoBox(latitudeIndex: 1_200, longitudeIndex: $0) }
        try await cache.store(boxes.map { Self.forecast($0, fetchedAt: 1, hours: 3) })
        #expect(try await cache.forecasts(for: boxes, fetchedSince: 0).count == 1_500)
    }
}
