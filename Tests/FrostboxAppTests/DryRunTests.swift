import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Synchronization
import Testing

/// Lines a command reported.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite("notify --once --dry-run")
struct DryRunTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A frosty forecast of `box` from the current hour on, fetched `now`.
    static func forecast(_ box: GeoBox, now: Int64) -> BoxForecast {
        let start = now - now % 3_600
        let hours = (0..<48).map { i in
            let time = start + Int64(i) * 3_600
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time + 7_200), temperatureC: -5)
        }
        return BoxForecast(
            box: box, timezone: "Europe/Helsinki", utcOffsetSeconds: 7_200, gridLatitude: box.centre.latitude,
            gridLongitude: box.centre.longitude, elevation: 10, fetchedAt: now, hours: hours)
    }

    /// Settings on a database in `directory`, no places, forecasts from `baseURL`.
    static func settings(_ directory: TemporaryDirectory, baseURL: String) -> FrostboxSettings {
        var config = FrostboxSettings()
        config.databasePath = directory.databasePath
        config.placesSeed = nil
        config.forecasts.baseURL = baseURL
        return config
    }

    /// Subscribes `token` to a place in Helsinki; returns its coordinate.
    static func subscribeHome(_ token: DeviceToken, _ components: FrostboxApplication.Components, at now: Int64) async throws -> Coordinate {
        let helsinki = try Coordinate(latitude: 60.17, longitude: 24.94)
        _ = try await components.subscriptions.subscribe(token, to: NewSubscription(coordinate: helsinki, name: try PlaceName("Home")), at: now)
        return helsinki
    }

    @Test("a dry run plans from fresh cached forecasts only: no request, no cache write, no quota, the rest left out")
    func dryRunCostsNothing() async throws {
        let mock = MockOpenMeteo(logger: Self.quiet)
        try await mock.withRunning { baseURL in
            let directory = try TemporaryDirectory(prefix: "frostbox-dry-run")
            let config = Self.settings(directory, baseURL: baseURL)
            let components = try FrostboxApplication.Components(config: config, logger: Self.quiet)
            let now = components.clock()
            let token = try DeviceToken("0123456789abcdef0123456789abcdef")
            let helsinki = try await Self.subscribeHome(token, components, at: now)
            _ = try await components.subscriptions.subscribe(
                token, to: NewSubscription(coordinate: try Coordinate(latitude: -33.87, longitude: 151.21), name: try PlaceName("Away")), at: now)
            try await components.forecasts.cache.store([Self.forecast(helsinki.box, now: now)])

            let lines = Lines()
            let result = try await NotifierCommands.notifyOnce(config: config, dryRun: true, logger: Self.quiet) { line in
                lines.append(line)
            }
            guard case .completed(let summary) = result else {
                Issue.record("the dry run did not run: \(result)")
                return
            }
            #expect(summary.status == .completed)
            #expect(summary.boxes == 2)
            #expect(summary.forecastsCached == 1)
            #expect(summary.forecastsFetched == 0)
            #expect(summary.boxesLeftOut == 1)
            #expect(summary.forecastRequests == 0)
            #expect(mock.counters.requests == 0)
            #expect(try await components.database.cachedForecasts() == 1)
            #expect(try await components.forecasts.ledger.usage(at: components.clock()).lastDay == 0)
            #expect(try await components.notifier.store.recentRuns(limit: 5).isEmpty)
            #expect(lines.all.contains { $0.hasPrefix("dry run: 1 of 2 boxes planned from cached forecasts; 1 without") })

            // The same database without --dry-run does fetch the uncached box: the mock counts
            // the request the dry run did not make.
            _ = try await NotifierCommands.notifyOnce(config: config, dryRun: false, logger: Self.quiet) { _ in }
            #expect(mock.counters.requests > 0)
            #expect(try await components.database.cachedForecasts() == 2)
        }
    }

    @Test("a dry run's line says when an alert would be held for quiet hours, and until when")
    func describesHeld() {
        let alert = PlannedAlert(
            token: DeviceToken(trusted: "0123456789abcdef0123456789abcdef"),
            event: FrostEvent(box: GeoBox(key: 1)!, night: LocalDate(year: 2026, month: 11, day: 10), level: .freeze),
            kind: .frost, places: ["Garden"], unit: .celsius, minimumC: -1, coldestAt: nil, windowEnd: 2_000_000_000, relativeNight: .tonight)
        var entry = OutboxEntry(event: alert.event, kind: .frost, notification: alert.notification(), createdAt: 0)
        #expect(!NotifierCommands.describe(entry).contains("held"))
        entry.notBefore = 1_794_380_400
        #expect(NotifierCommands.describe(entry).contains("(held for quiet hours or a delivery window until 2026-11-11T07:00:00Z)"))
    }
}

@Suite("notify --once --dry-run by model run")
struct DryRunByModelRunTests {
    @Test("a dry run judges the cache by model run: a cached forecast within the TTL but older than the model's new run is left out")
    func dryRunByRun() async throws {
        let mock = MockOpenMeteo(logger: DryRunTests.quiet)
        try await mock.withRunning { baseURL in
            let directory = try TemporaryDirectory(prefix: "frostbox-dry-run-runs")
            var config = DryRunTests.settings(directory, baseURL: baseURL)
            config.forecasts.modelNames = ["icon_eu"]
            // A loaded whole run answered meta.json after the 5 s default, and the dry run then
            // fell back to the TTL: this test is about the judgement, not the deadline.
            config.forecasts.metaTimeoutSeconds = 60
            let components = try FrostboxApplication.Components(config: config, logger: DryRunTests.quiet)
            let now = components.clock()
            let helsinki = try await DryRunTests.subscribeHome(try DeviceToken("0123456789abcdef0123456789abcdef"), components, at: now)
            // Cached 30 minutes ago (within the 1 h TTL) from the run that was out 3 hours ago.
            let old = ModelRun(model: "icon_eu", initialisedAt: now - 5 * 3_600, availableAt: now - 3 * 3_600)
            var cached = DryRunTests.forecast(helsinki.box, now: now - 1_800)
            cached.runs = [old]
            try await components.forecasts.cache.store([cached])
            let domain = OpenMeteoModels.metaDomain(of: "icon_eu")
            mock.runs.publish(.init(domain: domain, initialisedAt: old.initialisedAt, availableAt: old.availableAt))

            let first = try await Self.dryRun(config)
            #expect(first.forecastsCached == 1)
            #expect(first.boxesLeftOut == 0)

            // A new run out for 20 minutes (past the 10 min consistency delay): the cached forecast is stale for the dry run too.
            mock.runs.publish(.init(domain: domain, initialisedAt: now - 3 * 3_600, availableAt: now - 1_200))
            let second = try await Self.dryRun(config)
            #expect(second.forecastsCached == 0)
            #expect(second.boxesLeftOut == 1)
            #expect(second.forecastRequests == 0)
            #expect(mock.counters.requests == 0)
            #expect(mock.runs.requests[domain, default: 0] >= 1)
        }
    }

    /// One dry run's summary; a run that did not happen fails the test.
    static func dryRun(_ config: FrostboxSettings) async throws -> NotifyRunSummary {
        let result = try await NotifierCommands.notifyOnce(config: config, dryRun: true, logger: DryRunTests.quiet) { _ in }
        guard case .completed(let summary) = result else { throw DryRunDidNotRun(result: "\(result)") }
        return summary
    }

    struct DryRunDidNotRun: Error {
        let result: String
    }
}
