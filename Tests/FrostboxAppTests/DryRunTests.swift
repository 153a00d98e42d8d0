import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
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

    @Test("a dry run plans from fresh cached forecasts only: no request, no cache write, no quota, the rest left out")
    func dryRunCostsNothing() async throws {
        let mock = MockOpenMeteo(logger: Self.quiet)
        try await mock.withRunning { baseURL in
            let directory = try TemporaryDirectory(prefix: "frostbox-dry-run")
            var config = FrostboxSettings()
            config.databasePath = directory.databasePath
            config.placesSeed = nil
            config.forecasts.baseURL = baseURL
            let components = try FrostboxApplication.Components(config: config, logger: Self.quiet)
            let now = components.clock()
            let token = try DeviceToken("0123456789abcdef0123456789abcdef")
            let helsinki = try Coordinate(latitude: 60.17, longitude: 24.94)
            _ = try await components.subscriptions.subscribe(token, to: NewSubscription(coordinate: helsinki, name: try PlaceName("Home")), at: now)
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
        #expect(NotifierCommands.describe(entry).contains("(held for quiet hours until 2026-11-11T07:00:00Z)"))
    }
}
