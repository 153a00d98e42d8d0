import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import Logging
import MockOpenMeteo
import Testing

@Suite("Forecast pipeline: live components, real SQLite, mock Open-Meteo")
struct ForecastPipelineTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })

    static func boxes(_ count: Int) -> [GeoBox] {
        (0..<count).map { GeoBox(latitudeIndex: 1_204, longitudeIndex: 400 + $0) }
    }

    @Test("a daily budget smaller than the boxes, then a restart: the ledger and cache carry over, the second run makes no call")
    func budgetAcrossRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-forecast-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("frostbox.sqlite").path
        let mock = MockOpenMeteo(logger: Self.quiet)
        let boxes = Self.boxes(120)
        try await mock.withRunning { baseURL in
            var settings = ForecastSettings()
            settings.baseURL = baseURL
            settings.batchSize = 20
            settings.budgets = QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 50)
            let now = Int64(Date().timeIntervalSince1970)

            let first = ForecastComponents(database: .sqlite(try FrostboxDatabase(path: path, logger: Self.quiet)), settings: settings, logger: Self.quiet)
            let run1 = await first.provider.forecasts(for: boxes, now: now)
            try await first.shutdown()
            #expect(run1.forecasts.count == 50)
            #expect(run1.failures.count == 70)
            #expect(run1.requestsMade == 3)
            #expect(run1.weightUsed == 50)
            #expect(mock.counters.batchSizes.sorted(by: >) == [20, 20, 10])
            #expect(
                run1.failures.values.allSatisfy {
                    if case .budgetExhausted(let retryAfter) = $0 { return retryAfter == now + 86_400 }
                    return false
                })

            let second = ForecastComponents(database: .sqlite(try FrostboxDatabase(path: path, logger: Self.quiet)), settings: settings, logger: Self.quiet)
            let run2 = await second.provider.forecasts(for: boxes, now: now + 120)
            try await second.shutdown()
            #expect(run2.forecasts.count == 50)
            #expect(run2.forecasts.values.allSatisfy { $0.source == .cache })
            #expect(run2.failures.count == 70)
            #expect(run2.requestsMade == 0)
            #expect(mock.counters.requests == 3)
        }
    }

    /// The report lines of `frostbox forecast`'s output, without log lines.
    static func report(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { !$0.contains(" [FrostboxForecasting] ") }
    }

    @Test("frostbox forecast's report: fetched first with the model run it came from, then from the cache while the model has no new run")
    func forecastReport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-forecast-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockOpenMeteo(scenario: MockScenario(frost: [FrostSpot(latitude: 60.19, longitude: 25.01, minimumC: -3.5)]), logger: Self.quiet)
        // Helsinki is in best_match's ICON-EU region: its latest run, out for an hour.
        let now = Int64(Date().timeIntervalSince1970)
        mock.runs.publish(.init(domain: "dwd_icon_eu", initialisedAt: now - 9_000, availableAt: now - 3_600))
        try await mock.withRunning { baseURL in
            let database = directory.appendingPathComponent("frostbox.sqlite").path
            // A generous metadata deadline: on a loaded machine 5 s can pass, and the TTL would decide instead.
            // The forecast alone (the chance of frost has its own test below).
            let arguments = [
                "forecast", "--near", "60.19,25.01", "--base-url", baseURL, "--db", database, "--set", "forecast.meta_timeout=60s", "--set",
                "forecast.probability=off",
            ]
            let first = try await CommandLineTests.frostboxAsync(arguments, in: directory)
            #expect(first.status == 0, "\(first.output)")
            // Log lines (a metadata warning on a loaded machine) go their own way; the report is the rest.
            let firstLines = Self.report(first.output)
            #expect(firstLines.first == "box 60.20#25.00 (centre 60.2, 25.0)")
            #expect(firstLines.count > 1 && firstLines[1].hasPrefix("source fetched"), "\(first.output)")
            #expect(firstLines.count > 2 && firstLines[2].hasPrefix("runs icon_eu "), "\(first.output)")
            #expect(firstLines.contains { $0.contains("hard-freeze") })
            #expect(firstLines.contains("requests 1, weight 1.0"), "\(first.output)")
            let second = try await CommandLineTests.frostboxAsync(arguments, in: directory)
            let secondLines = Self.report(second.output)
            #expect(secondLines.count > 1 && secondLines[1].hasPrefix("source cache"), "\(second.output)")
            #expect(secondLines.contains("requests 0, weight 0.0"), "\(second.output)")
            #expect(mock.counters.requests == 1)
        }
    }

    @Test("frostbox forecast --box: each night's chance of frost from the members, their lows as a histogram, the ensemble's weight")
    func chanceOfFrostReport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-forecast-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A warm place (about 10 °C at dawn whatever the season) but for −0.4 °C at 05:00 every
        // night; the 40 members lie from −2 to +2 °C around it.
        let mock = MockOpenMeteo(scenario: MockScenario(frost: [FrostSpot(latitude: 20, longitude: 100, minimumC: -0.4)]), logger: Self.quiet)
        try await mock.withRunning { baseURL in
            let database = directory.appendingPathComponent("frostbox.sqlite").path
            let arguments = [
                "forecast", "--box", "20.00#100.00", "--base-url", baseURL, "--db", database, "--set", "forecast.probability=members",
            ]
            let run = try await CommandLineTests.frostboxAsync(arguments, in: directory)
            #expect(run.status == 0, "\(run.output)")
            let lines = Self.report(run.output).filter { !$0.contains(" [FrostboxForecasting] ") }
            #expect(lines.first == "box 20.00#100.00 (centre 20.0, 100.0)")
            #expect(lines.contains { $0.hasPrefix("chance of frost (members: icon_seamless, 40 members, weight 4.0 a box, fetched)") }, "\(run.output)")
            #expect(lines.contains { $0.contains("frost-risk 100 % (≤ 3.0 °C), freeze 60 % (≤ 0.0 °C), hard-freeze 13 % (≤ -2.0 °C)") }, "\(run.output)")
            // −2.4, −2.3, −2.2 and −2.1 °C; the fifth member's −1.99 is answered as −2.0, in the next bin.
            #expect(lines.contains { $0.hasPrefix("    -3 … -2 °C") && $0.hasSuffix(" #### 4") }, "\(run.output)")
            #expect(lines.contains("requests 2, weight 5.0"), "\(run.output)")
            #expect(mock.counters.ensembleRequests == 1)
            let bad = try await CommandLineTests.frostboxAsync(["forecast", "--box", "north"], in: directory)
            #expect(bad.status != 0)
            #expect(bad.output.contains("--box must look like 60.20#25.05"))
        }
    }
}
