import Foundation
import FrostboxCore
import Logging
import MockOpenMeteo
import Testing

@testable import FrostboxOpenMeteo

@Suite("OpenMeteoClient against the mock on port 0")
struct OpenMeteoClientTests {
    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box

    @Test("one box: the single-object shape, 72 hourly values in °C, %, km/h, the answer's grid cell and zone")
    func singleLocation() async throws {
        try await MockHarness.run { h in
            let forecasts = try #require(await h.client.forecasts(for: [Self.helsinki]).value)
            #expect(forecasts.count == 1)
            let forecast = forecasts[0]
            #expect(forecast.box == Self.helsinki)
            #expect(forecast.hours.count == 72)
            #expect(forecast.timezone == "Europe/Helsinki")
            #expect(forecast.gridLatitude == 60.2)
            #expect(forecast.gridLongitude == 25.0)
            #expect(forecast.elevation != nil)
            #expect(forecast.fetchedAt == h.clock.now())
            #expect(forecast.hours.allSatisfy { $0.temperatureC != nil && $0.dewPointC != nil && $0.cloudCoverPercent != nil && $0.windSpeedKmh != nil })
            // Each hour's wall clock is its UTC time plus the zone's offset; the series starts at local midnight.
            #expect(forecast.hours[0].local.hour == 0)
            for hour in forecast.hours {
                let offset = TimeZone(identifier: "Europe/Helsinki")!.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(hour.time)))
                #expect(hour.local == LocalDateTime(wallClockSeconds: hour.time + Int64(offset)))
            }
            let counters = h.mock.counters
            #expect(counters.requests == 1)
            #expect(counters.getRequests == 1)
            #expect(counters.locations == 1)
            #expect(counters.weight == 1)
        }
    }

    @Test("several boxes: one request, the array shape, forecasts in request order")
    func arrayShape() async throws {
        let boxes = [Self.helsinki, Coordinate(uncheckedLatitude: 0, longitude: 10).box, Coordinate(uncheckedLatitude: -33.87, longitude: 151.21).box]
        try await MockHarness.run { h in
            let forecasts = try #require(await h.client.forecasts(for: boxes).value)
            #expect(forecasts.map(\.box) == boxes)
            #expect(forecasts.map(\.timezone) == ["Europe/Helsinki", "Etc/GMT-1", "Australia/Sydney"])
            #expect(h.mock.counters.requests == 1)
            #expect(h.mock.counters.locations == 3)
        }
    }

    @Test("several models: Open-Meteo's suffixed series, ICON-D2's 48 hours extended by ICON-EU's, charged per model's variables")
    func severalModels() async throws {
        try await MockHarness.run(configure: { $0.models = ["icon_d2", "icon_eu"] }) { h in
            let forecast = try #require(await h.client.forecasts(for: [Self.helsinki]).value)[0]
            #expect(h.mock.counters.weight == 1)
            var bestMatch = h.client.configuration
            bestMatch.models = []
            let plain = try #require(await OpenMeteoClient(httpClient: h.http, configuration: bestMatch, clock: h.clock).forecasts(for: [Self.helsinki]).value)[
                0]
            #expect(forecast.hours.count == 72)
            #expect(forecast.hours.allSatisfy { $0.temperatureC != nil })
            // The mock's first model has the plain weather for its 48 hours; the second lies 0.3 °C above it.
            let shifts = zip(forecast.hours, plain.hours).map { ($0.temperatureC! - $1.temperatureC!) * 10 }.map { $0.rounded() / 10 }
            #expect(shifts[..<48].allSatisfy { $0 == 0 })
            #expect(shifts[48...].allSatisfy { $0 == 0.3 })
        }
    }

    @Test("a batch whose URL would pass 8 KB goes as one form-encoded POST")
    func postForLongLists() async throws {
        let boxes = row(1_000)
        try await MockHarness.run { h in
            #expect(h.client.query(for: boxes).utf8.count > 8_000)
            let forecasts = try #require(await h.client.forecasts(for: boxes).value)
            #expect(forecasts.map(\.box) == boxes)
            #expect(h.mock.counters.postRequests == 1)
            #expect(h.mock.counters.getRequests == 0)
            #expect(h.mock.counters.locations == 1_000)
            #expect(h.mock.counters.weight == 1_000)
        }
    }

    @Test("a server that refuses POST gets the long list as a GET, then always")
    func postRefused() async throws {
        let boxes = row(1_000)
        try await MockHarness.run(MockScenario(faults: MockFaults(refusePost: true))) { h in
            let forecasts = try #require(await h.client.forecasts(for: boxes).value)
            #expect(forecasts.map(\.box) == boxes)
            #expect(h.mock.counters.postRequests == 1)
            #expect(h.mock.counters.getRequests == 1)
            _ = try #require(await h.client.forecasts(for: boxes).value)
            #expect(h.mock.counters.postRequests == 1)
            #expect(h.mock.counters.getRequests == 2)
        }
    }

    @Test("a short batch stays a GET")
    func getForShortLists() async throws {
        try await MockHarness.run { h in
            _ = try #require(await h.client.forecasts(for: row(100)).value)
            #expect(h.mock.counters.getRequests == 1)
            #expect(h.mock.counters.postRequests == 0)
        }
    }

    @Test("503s are retried with exponential backoff and jitter, then succeed")
    func serverErrorsRetried() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextStatuses: [503, 503]))) { h in
            let forecasts = try #require(await h.client.forecasts(for: [Self.helsinki]).value)
            #expect(forecasts.count == 1)
            #expect(h.mock.counters.requests == 3)
            // Base 0.5 s doubling; equal jitter with a random fraction of 0.5 gives 3/4 of each ceiling.
            #expect(h.clock.sleeps == [0.375, 0.75])
        }
    }

    @Test("retries are bounded: a source that keeps failing fails the batch with its status and reason")
    func serverErrorsBounded() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextStatuses: [503, 503, 503, 503, 503]))) { h in
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(failure == .remote(status: 503, reason: "Injected failure 503"))
            #expect(h.mock.counters.requests == 4)
            #expect(h.clock.sleeps.count == 3)
        }
    }

    @Test("a 429 naming the minutely limit is waited out (a minute) and retried")
    func minutelyLimitWaited() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["minute"]))) { h in
            let forecasts = try #require(await h.client.forecasts(for: [Self.helsinki]).value)
            #expect(forecasts.count == 1)
            #expect(h.clock.sleeps == [60])
            #expect(h.mock.counters.requests == 2)
        }
    }

    @Test("a second minutely 429 in a row is not waited out again: the batch fails as rate-limited")
    func minutelyLimitOnce() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["minute", "minute"]))) { h in
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            guard case .rateLimited(let reason, _) = failure else {
                Issue.record("expected rate-limited, got \(String(describing: failure))")
                return
            }
            #expect(reason.hasPrefix("Minutely API request limit exceeded"))
            #expect(h.clock.sleeps == [60])
            #expect(h.mock.counters.requests == 2)
        }
    }

    @Test("a 429 naming the hourly limit fails at once as rate-limited until the next full hour")
    func hourlyLimit() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["hour"]))) { h in
            let now = h.clock.now()
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(
                failure == .rateLimited(reason: "Hourly API request limit exceeded. Please try again in the next hour.", retryAfter: (now / 3_600 + 1) * 3_600))
            #expect(h.mock.counters.requests == 1)
            #expect(h.clock.sleeps.isEmpty)
        }
    }

    @Test("a 429 naming the daily limit fails at once as rate-limited until the next UTC midnight")
    func dailyLimit() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["day"]))) { h in
            let now = h.clock.now()
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(failure == .rateLimited(reason: "Daily API request limit exceeded. Please try again tomorrow.", retryAfter: (now / 86_400 + 1) * 86_400))
            #expect(h.mock.counters.requests == 1)
        }
    }

    @Test("the mock's own budgets answer with the real reasons once a window is used up")
    func mockBudgets() async throws {
        try await MockHarness.run(MockScenario(budgets: MockBudgets(day: 3), now: 1_774_000_000)) { h in
            #expect(await h.client.forecasts(for: row(3)).value?.count == 3)
            let failure = await h.client.forecasts(for: row(1)).failure
            guard case .rateLimited(let reason, _) = failure else {
                Issue.record("expected rate-limited, got \(String(describing: failure))")
                return
            }
            #expect(reason.hasPrefix("Daily API request limit exceeded"))
        }
    }

    @Test("Open-Meteo's JSON errors surface with their reason and are not retried")
    func jsonErrors() async throws {
        try await MockHarness.run(MockScenario(apiKey: "s3cret")) { h in
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(failure == .remote(status: 401, reason: "API key required. Please add &apikey= to the URL."))
            #expect(h.mock.counters.requests == 1)
        }
        try await MockHarness.run(MockScenario(apiKey: "s3cret"), configure: { $0.apiKey = "wrong" }) { h in
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(failure == .remote(status: 400, reason: "The supplied API key is invalid."))
        }
        try await MockHarness.run(MockScenario(apiKey: "s3cret"), configure: { $0.apiKey = "s3cret" }) { h in
            #expect(await h.client.forecasts(for: [Self.helsinki]).value?.count == 1)
        }
    }

    @Test("a truncated 200 fails the whole batch as an invalid response, without a retry")
    func truncatedBody() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(truncateNext: 1))) { h in
            let failure = await h.client.forecasts(for: row(5)).failure
            guard case .invalidResponse(let why) = failure else {
                Issue.record("expected invalid response, got \(String(describing: failure))")
                return
            }
            #expect(why.contains("does not decode"))
            #expect(h.mock.counters.requests == 1)
        }
    }

    @Test("a 200 with fewer locations than asked fails the whole batch")
    func wrongLocationCount() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(dropLocationNext: 1))) { h in
            let failure = await h.client.forecasts(for: row(5)).failure
            #expect(failure == .invalidResponse("asked for 5 locations, the answer has 4"))
        }
    }

    @Test("an answer out of order without location_id is caught by its grid cells")
    func misorderedAnswer() async throws {
        let boxes = [Self.helsinki, Coordinate(uncheckedLatitude: 0, longitude: 10).box]
        try await MockHarness.run(MockScenario(faults: MockFaults(scrambleNext: 1))) { h in
            let failure = await h.client.forecasts(for: boxes).failure
            guard case .invalidResponse(let why) = failure else {
                Issue.record("expected invalid response, got \(String(describing: failure))")
                return
            }
            #expect(why.contains("another place"))
        }
    }

    @Test("no answer within the deadline is a timeout, retried a bounded number of times")
    func timeout() async throws {
        try await MockHarness.run(
            MockScenario(faults: MockFaults(latencyMilliseconds: 1_500)),
            configure: {
                $0.requestTimeoutSeconds = 0.2
                $0.maximumAttempts = 2
            }
        ) { h in
            let failure = await h.client.forecasts(for: [Self.helsinki]).failure
            #expect(failure == .timeout)
            #expect(h.clock.sleeps.count == 1)
        }
    }

    @Test("a server that is not there fails in well under a second, once, in a plain sentence, charged nothing")
    func connectionRefused() async throws {
        // A port that refuses connections throughout (bound, never listening).
        let port = try ClosedPort()
        let closed = port.url
        defer { withExtendedLifetime(port) {} }
        try await MockHarness.run { h in
            let client = OpenMeteoClient(
                httpClient: h.client.httpClient, configuration: OpenMeteoSettings(baseURL: closed, maximumAttempts: 4),
                clock: h.clock)
            let gate = RecordingGate()
            let failure = await client.forecasts(for: [Self.helsinki], gate: gate).failure
            // "At once" is asserted by counts, not a clock: one attempt (the gate saw one) and
            // no backoff (the manual clock slept nothing), so no timeout was waited for.
            #expect(
                failure
                    == .transport("Could not connect to the forecast server at \(closed): the connection was refused (is it running, and is the port right?)."))
            let unreachable = try #require(failure)
            #expect(OpenMeteoClient.isUnreachable(unreachable))
            #expect(h.clock.sleeps.isEmpty)
            #expect(await gate.reports == [AttemptReport(charge: .nothing, succeeded: false)])
        }
    }

    @Test("each attempt tells the gate what the server charged: 503 one unit, a truncated 200 its full weight")
    func attemptCharges() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextStatuses: [503], truncateNext: 1))) { h in
            let gate = RecordingGate()
            let failure = await h.client.forecasts(for: row(5), gate: gate).failure
            guard case .invalidResponse = failure else {
                Issue.record("expected invalid response, got \(String(describing: failure))")
                return
            }
            #expect(await gate.reports == [AttemptReport(charge: .errorAnswer, succeeded: false), AttemptReport(charge: .fullWeight, succeeded: false)])
            #expect(h.mock.counters.chargedWeight == 6)
        }
    }

    @Test("an answer that comes after the deadline was still processed: a timeout charged its full weight, then retried")
    func hangChargedInFull() async throws {
        try await MockHarness.run(
            MockScenario(faults: MockFaults(hangNext: 1, hangMilliseconds: 60_000)), configure: { $0.requestTimeoutSeconds = 10 }
        ) { h in
            let gate = RecordingGate()
            let forecasts = await h.client.forecasts(for: row(3), gate: gate).value
            #expect(forecasts?.count == 3)
            // Two attempts on a quiet machine; a loaded one may time out a retry too, charged in full all the same.
            let reports = await gate.reports
            #expect(reports.count >= 2)
            #expect(reports.allSatisfy { $0.charge == .fullWeight })
            #expect(h.mock.counters.hung == 1)
            #expect(h.mock.counters.chargedWeight == 3 * Double(reports.count))
        }
    }

    @Test("a minutely 429 reports the server's pause with its one unit")
    func minutelyPauseReported() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["minute"]))) { h in
            let gate = RecordingGate()
            let now = h.clock.now()
            _ = try #require(await h.client.forecasts(for: [Self.helsinki], gate: gate).value)
            let reports = await gate.reports
            #expect(
                reports.first
                    == AttemptReport(
                        charge: .errorAnswer, succeeded: false,
                        pause: QuotaHold(until: now + 60, reason: "Minutely API request limit exceeded. Please try again in one minute.")))
            #expect(reports.last == AttemptReport(charge: .fullWeight, succeeded: true))
        }
    }

    @Test("across a DST change each hour's wall clock follows the zone, not one fixed offset")
    func dstSpringForward() async throws {
        // 2025-03-29 12:00 UTC: Helsinki moves from +2 to +3 at 2025-03-30 01:00 UTC (03:00 → 04:00 local).
        try await MockHarness.run(MockScenario(now: 1_743_249_600)) { h in
            let forecast = try #require(await h.client.forecasts(for: [Self.helsinki]).value?.first)
            #expect(forecast.utcOffsetSeconds == 7_200)
            let before = try #require(forecast.hours.first { $0.time == 1_743_292_800 })  // 00:00 UTC on the 30th
            let after = try #require(forecast.hours.first { $0.time == 1_743_292_800 + 3_600 })
            #expect(before.local.description == "2025-03-30T02:00")
            #expect(after.local.description == "2025-03-30T04:00")
            #expect(!forecast.hours.contains { $0.local.date.day == 30 && $0.local.hour == 3 })
            let night = FrostRule.default.evaluate(forecast.hours).nights.first { $0.night.description == "2025-03-29" }
            #expect(night?.isComplete == true)
        }
    }

    @Test("the weight of a location follows Open-Meteo's formula")
    func weightFormula() {
        #expect(OpenMeteoSettings.weightPerLocation(variables: 4, days: 3) == 1)
        #expect(OpenMeteoSettings.weightPerLocation(variables: 10, days: 14) == 1)
        #expect(OpenMeteoSettings.weightPerLocation(variables: 20, days: 7) == 2)
        #expect(OpenMeteoSettings.weightPerLocation(variables: 20, days: 28) == 4)
        #expect(OpenMeteoSettings().weightPerLocation == 1)
    }

    @Test("the query carries box centres, the four variables, timezone=auto, days, unixtime and the key")
    func query() {
        let client = OpenMeteoClient(
            httpClient: .shared, configuration: OpenMeteoSettings(baseURL: "https://example.test/", apiKey: "a b&c", forecastDays: 5),
            clock: ManualForecastClock())
        let query = client.query(for: [Self.helsinki, Coordinate(uncheckedLatitude: -33.87, longitude: -151.21).box])
        #expect(
            query
                == "latitude=60.20,-33.85&longitude=25.00,-151.20&hourly=temperature_2m,dew_point_2m,cloud_cover,wind_speed_10m&timezone=auto&forecast_days=5&timeformat=unixtime&apikey=a%20b%26c"
        )
        #expect(client.configuration.endpoint == "https://example.test/v1/forecast")
    }
}

/// A gate that admits everything and keeps every report, in order.
actor RecordingGate: RequestGate {
    var reports: [AttemptReport] = []

    func admit(locations: Int, attempt: Int) async -> ForecastFailure? { nil }

    func settle(locations: Int, attempt: Int, report: AttemptReport) async { reports.append(report) }
}
