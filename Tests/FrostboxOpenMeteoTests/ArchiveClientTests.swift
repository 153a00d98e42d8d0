import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxOpenMeteo
import MockOpenMeteo
import Testing

/// What happened, from `/v1/archive` (issue #48): the request's text, and the client against
/// the mock, whose observed spots follow a frost spot's curve exactly during their nights.
@Suite("Archive client: the request, observed nights from the mock, missing hours, weight charged")
struct ArchiveClientTests {
    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let stockholm = Coordinate(uncheckedLatitude: 59.33, longitude: 18.07).box
    static let nov27 = LocalDate(year: 2026, month: 11, day: 27)
    static let nov28 = LocalDate(year: 2026, month: 11, day: 28)
    /// 2026-11-27 00:00 UTC.
    static let midnight = nov27.daysSinceEpoch * 86_400
    /// Helsinki (UTC+2 in November) observed at −6.5 °C at dawn on the night of 27–28 November
    /// only: warmer than the mock's base weather there, so only an exact curve gives it.
    static let spot = ObservedSpot(latitude: 60.19, longitude: 25.01, minimumC: -6.5, nights: [nov27])
    static let scenario = MockScenario(now: midnight, observed: [spot])

    static func archive(_ h: MockHarness, models: [String] = ["ecmwf_ifs"], maximumURLBytes: Int = 8_000) -> OpenMeteoArchiveClient {
        OpenMeteoArchiveClient(
            client: h.client,
            configuration: OpenMeteoSettings(
                baseURL: h.client.configuration.baseURL, requestTimeoutSeconds: 60, connectTimeoutSeconds: 30, maximumURLBytes: maximumURLBytes,
                models: models))
    }

    @Test("the GET carries the boxes, temperature_2m, GMT, the start and end dates instead of forecast_days, unixtime, the model and the key")
    func queryText() {
        let forecast = OpenMeteoClient(
            httpClient: .shared, configuration: OpenMeteoSettings(baseURL: "https://example.test/", apiKey: "a b&c", forecastDays: 5),
            clock: ManualForecastClock())
        let archive = OpenMeteoArchiveClient(
            client: forecast,
            configuration: OpenMeteoSettings(baseURL: OpenMeteoArchiveClient.defaultBaseURL, apiKey: "k", models: [OpenMeteoArchiveClient.defaultModel]))
        let boxes = [Self.helsinki, Coordinate(uncheckedLatitude: -33.87, longitude: -151.21).box]
        let query = archive.query(for: boxes, from: Self.nov27, through: Self.nov28)
        #expect(
            query
                == "latitude=60.20,-33.85&longitude=25.00,-151.20&hourly=temperature_2m&timezone=GMT&start_date=2026-11-27&end_date=2026-11-28&timeformat=unixtime&models=ecmwf_ifs&apikey=k"
        )
        let request = archive.makeRequest(boxes, from: Self.nov27, through: Self.nov28)
        #expect(request.method == .GET)
        #expect(request.url == "https://archive-api.open-meteo.com/v1/archive?" + query)
        // The forecast client the archive was made from asks what it always asked.
        #expect(
            forecast.query(for: boxes)
                == "latitude=60.20,-33.85&longitude=25.00,-151.20&hourly=temperature_2m,dew_point_2m,cloud_cover,wind_speed_10m&timezone=auto&forecast_days=5&timeformat=unixtime&apikey=a%20b%26c"
        )
        #expect(forecast.configuration.endpoint == "https://example.test/v1/forecast")
    }

    @Test("the default archive: its own host, ecmwf_ifs; the weight per location counts days and models as Open-Meteo does")
    func defaultsAndWeight() {
        let forecast = OpenMeteoClient(httpClient: .shared, clock: ManualForecastClock())
        let archive = OpenMeteoArchiveClient(client: forecast)
        #expect(archive.configuration.endpoint == "https://archive-api.open-meteo.com/v1/archive")
        #expect(archive.configuration.models == ["ecmwf_ifs"])
        #expect(archive.configuration.hourlyVariables == ["temperature_2m"])
        #expect(archive.weightPerLocation(days: 2) == 1)
        #expect(archive.weightPerLocation(days: 280) == 2)
        let two = OpenMeteoArchiveClient(client: forecast, configuration: OpenMeteoSettings(models: ["ecmwf_ifs", "era5"]))
        #expect(two.weightPerLocation(days: 140) == 2)
        #expect(two.weightPerLocation(days: 700) == 10)
    }

    @Test("an observed spot's night gives exactly its minimum; other hours and other boxes are the base weather the forecast shows")
    func observedNight() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let archive = Self.archive(h)
            let observed = try await archive.observations(for: [Self.helsinki, Self.stockholm], from: Self.nov27, through: Self.nov28, gate: nil).get()
            #expect(observed.map(\.box) == [Self.helsinki, Self.stockholm])
            let expectedTimes = (0..<48).map { Self.midnight + Int64($0) * 3_600 }
            #expect(observed.allSatisfy { $0.times == expectedTimes && $0.temperaturesC.allSatisfy { $0 != nil } })
            // The night of the 27th in Helsinki: local 18:00 (16:00 UTC) to 10:00 (08:00 UTC).
            let nightStart = Self.midnight + 16 * 3_600
            let nightEnd = Self.midnight + 32 * 3_600
            #expect(observed[0].minimum(from: nightStart, to: nightEnd) == -6.5)
            // Local 05:00 is the minimum, local 18:00 lies 11 hours from it.
            #expect(observed[0].temperaturesC[27] == -6.5)
            #expect(observed[0].temperaturesC[16] == 0.1)
            // Outside the spot's night, and in a box without a spot, the base weather: what the forecast says for the same hour.
            let forecasts = try await h.client.forecasts(for: [Self.helsinki, Self.stockholm]).get()
            for (hours, forecast) in zip(observed, forecasts) {
                let predicted = Dictionary(uniqueKeysWithValues: forecast.hours.map { ($0.time, $0.temperatureC) })
                for (time, value) in zip(hours.times, hours.temperaturesC) where hours.box != Self.helsinki || time < nightStart || time >= nightEnd {
                    #expect(predicted[time] == value, "hour \(time) of \(hours.box)")
                }
            }
            let counters = h.mock.counters
            #expect(counters.archiveRequests == 1 && counters.archiveLocations == 2 && counters.requests == 1)
            #expect(counters.archiveWeight == 2 * archive.weightPerLocation(days: 2))
        }
    }

    @Test("hours at or after observed_missing_after are nil, and a night that reaches them has no minimum yet")
    func missingHours() async throws {
        try await MockHarness.run(Self.scenario) { h in
            // 02:00 UTC on the 28th, 04:00 in Helsinki: the night's last hours are not analysed yet.
            let cutoff = Self.midnight + 26 * 3_600
            h.mock.setObserved([Self.spot], missingAfter: cutoff)
            let observed = try await Self.archive(h).observations(for: [Self.helsinki], from: Self.nov27, through: Self.nov28, gate: nil).get()
            let hours = try #require(observed.first)
            for (time, value) in zip(hours.times, hours.temperaturesC) {
                #expect((value == nil) == (time >= cutoff))
            }
            #expect(hours.minimum(from: Self.midnight + 16 * 3_600, to: Self.midnight + 32 * 3_600) == nil)
            // Up to the cutoff (local 18:00 to 03:00) every hour is there: the lowest is at 03:00, two hours from dawn.
            #expect(hours.minimum(from: Self.midnight + 16 * 3_600, to: cutoff) == -5.3)
        }
    }

    @Test("a year and a day for two boxes from two models: the charge is what weightPerLocation(days:) says; the first model's values win")
    func chargedWeight() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let archive = Self.archive(h, models: ["ecmwf_ifs", "era5_seamless"])
            let first = LocalDate(year: 2025, month: 11, day: 28)
            #expect(archive.query(for: [Self.helsinki], from: first, through: Self.nov28).contains("&start_date=2025-11-28&end_date=2026-11-28&"))
            let gate = RecordingGate()
            let observed = try await archive.observations(for: [Self.helsinki, Self.stockholm], from: first, through: Self.nov28, gate: gate).get()
            #expect(observed.allSatisfy { $0.times.count == 366 * 24 })
            let nightStart = Self.midnight + 16 * 3_600
            #expect(observed[0].minimum(from: nightStart, to: nightStart + 16 * 3_600) == -6.5)
            let expected = 2 * archive.weightPerLocation(days: 366)
            #expect(abs(expected - 2 * 0.2 * 366 / 14) < 1e-9)
            #expect(abs(h.mock.counters.chargedWeight - expected) < 1e-9)
            #expect(await gate.reports.map(\.succeeded) == [true])
        }
    }

    @Test("a long list goes as a form POST with the same answer")
    func formPost() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let archive = Self.archive(h, maximumURLBytes: 64)
            #expect(archive.makeRequest([Self.helsinki], from: Self.nov27, through: Self.nov28).method == .POST)
            let observed = try await archive.observations(for: [Self.helsinki], from: Self.nov27, through: Self.nov28, gate: nil).get()
            #expect(observed.first?.minimum(from: Self.midnight + 16 * 3_600, to: Self.midnight + 32 * 3_600) == -6.5)
            #expect(h.mock.counters.archiveRequests == 1)
        }
    }

    @Test("the scenario's observed keys decode and encode back; absent, they keep their defaults")
    func scenarioKeys() throws {
        let json = #"""
            {"observed": [{"latitude": 60.19, "longitude": 25.01, "minimum_c": -6.5, "nights": ["2026-11-27"]}, {"latitude": 1, "longitude": 2}],
             "observed_missing_after": 1795831200}
            """#
        let scenario = try JSONDecoder().decode(MockScenario.self, from: Data(json.utf8))
        #expect(scenario.observed == [Self.spot, ObservedSpot(latitude: 1, longitude: 2, minimumC: -4, nights: nil)])
        #expect(scenario.observedMissingAfter == 1_795_831_200)
        #expect(try JSONDecoder().decode(MockScenario.self, from: JSONEncoder().encode(scenario)) == scenario)
        let empty = try JSONDecoder().decode(MockScenario.self, from: Data("{}".utf8))
        #expect(empty.observed.isEmpty && empty.observedMissingAfter == nil && empty.ensembleSpreadC == 2)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MockScenario.self, from: Data(#"{"observed": [{"latitude": 1, "longitude": 2, "nights": ["28.11.2026"]}]}"#.utf8))
        }
    }

    @Test("the mock refuses what Open-Meteo refuses: more than 366 days, a bad date, an end before the start, another time zone")
    func refusals() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let archive = Self.archive(h)
            let tooLong = await archive.observations(
                for: [Self.helsinki], from: LocalDate(year: 2025, month: 11, day: 27), through: Self.nov28, gate: nil)
            guard case .remote(status: 400, let reason) = tooLong.failure else {
                Issue.record("expected a 400, got \(tooLong)")
                return
            }
            #expect(reason.contains("366"))
            let reversed = await archive.observations(for: [Self.helsinki], from: Self.nov28, through: Self.nov27, gate: nil)
            #expect(reversed.failure != nil)
            let base = h.client.configuration.baseURL + "/v1/archive?latitude=60.2&longitude=25&hourly=temperature_2m&"
            for query in [
                "start_date=2026-02-30&end_date=2026-03-01", "start_date=2026-11-28&end_date=2026-11-27",
                "start_date=2026-11-27&end_date=2026-11-28&timezone=Europe%2FHelsinki", "start_date=2026-11-27",
            ] {
                let response = try await h.http.execute(HTTPClientRequest(url: base + query), timeout: .seconds(30))
                #expect(response.status.code == 400, "\(query)")
                let body = try await response.body.collect(upTo: 1 << 16)
                #expect(String(decoding: body.readableBytesView, as: UTF8.self).contains(#""error":true"#), "\(query)")
            }
            #expect(h.mock.counters.archiveRequests == 5)
            #expect(h.mock.counters.archiveLocations == 0)
        }
    }
}
