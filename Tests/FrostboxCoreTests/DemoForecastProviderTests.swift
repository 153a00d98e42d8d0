import FrostboxCore
import Testing

/// The built-in frost scenario of `frostbox serve --demo`.
@Suite("Demo forecast provider")
struct DemoForecastProviderTests {
    /// 2026-11-24T10:30Z.
    static let now: Int64 = 1_795_516_200

    @Test("every box asked for is answered, as fetched, with no request and no weight", arguments: [0, 1, 40])
    func answersEveryBox(count: Int) async {
        let boxes = (0..<count).map { GeoBox(latitudeIndex: 1200 + $0, longitudeIndex: 500 - $0 * 90) }
        let batch = await DemoForecastProvider().forecasts(for: boxes, now: Self.now)
        #expect(Set(batch.forecasts.keys) == Set(boxes))
        #expect(batch.failures.isEmpty)
        #expect(batch.requestsMade == 0 && batch.weightUsed == 0)
        #expect(batch.forecasts.values.allSatisfy { $0.source == .fetched && $0.forecast.hours.count == 72 })
    }

    @Test("the default rule sees a hard freeze in every night, at 05:00 local, at any longitude", arguments: [-179.95, -74.0, 0.0, 25.0, 139.7, 180.0])
    func hardFreezeEveryNight(longitude: Double) throws {
        let box = GeoBox(try Coordinate(latitude: 60.2, longitude: longitude))
        let forecast = DemoForecastProvider().forecast(for: box, now: Self.now)
        #expect(forecast.hours.first.map { $0.local.hour == 0 && $0.local.minute == 0 } == true, "the series starts at local midnight")
        #expect(forecast.hours.first.map { $0.time <= Self.now && Self.now < $0.time + 86_400 } == true)
        let verdict = FrostRule.default.evaluate(forecast.hours)
        #expect(verdict.level == .hardFreeze)
        #expect(verdict.minimumC == -4)
        #expect(verdict.coldest?.local.hour == 5)
        let complete = verdict.nights.filter(\.isComplete)
        #expect(complete.count >= 2)
        #expect(complete.allSatisfy { $0.level == .hardFreeze })
    }

    @Test("the zone is the whole-hour zone of the longitude, named as Etc/GMT names it")
    func zoneFollowsLongitude() throws {
        let helsinki = DemoForecastProvider().forecast(for: GeoBox(try Coordinate(latitude: 60.2, longitude: 25.0)), now: Self.now)
        #expect(helsinki.timezone == "Etc/GMT-2" && helsinki.utcOffsetSeconds == 7200)
        let newYork = DemoForecastProvider().forecast(for: GeoBox(try Coordinate(latitude: 40.7, longitude: -74.0)), now: Self.now)
        #expect(newYork.timezone == "Etc/GMT+5" && newYork.utcOffsetSeconds == -18_000)
    }
}
