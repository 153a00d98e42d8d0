import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import Logging
import MockOpenMeteo
import Testing

/// `frostbox notify --once` as the executable runs it (`NotifierCommands.notifyOnce`: the
/// composition root, real SQLite, the log-only push sink) against a mock Open-Meteo that
/// fails by rate: the quota ledger in the database must hold what the mock charged.
@Suite("Quota ledger end to end: notify --once against a faulty Open-Meteo")
struct QuotaLedgerEndToEndTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })

    /// 300 devices, each subscribed to a place in a box of its own.
    static func subscribe(_ config: FrostboxSettings, now: Int64) async throws {
        let components = try FrostboxApplication.Components(config: config, logger: quiet)
        for i in 0..<300 {
            let tail = String(i, radix: 16)
            let token = DeviceToken(trusted: "e7" + String(repeating: "0", count: 62 - tail.count) + tail)
            let place = try Coordinate(latitude: 60.025 + Double(i / 20) * 0.05, longitude: 20.025 + Double(i % 20) * 0.05)
            _ = try await components.subscriptions.subscribe(token, to: NewSubscription(coordinate: place, name: try PlaceName("Place \(i)")), at: now - 86_400)
        }
        try await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
    }

    static func withDatabase(_ body: (FrostboxSettings) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-quota-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = FrostboxSettings()
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        config.forecasts.batchSize = 20
        config.forecasts.maximumAttempts = 2
        // Generous: a late error answer would be charged in full (the safe side) and break the equality.
        config.forecasts.requestTimeoutSeconds = 60
        config.forecasts.connectTimeoutSeconds = 30
        try await body(config)
    }

    /// The weight the ledger in the database holds for the last day.
    static func ledgerWeight(_ config: FrostboxSettings) async throws -> Double {
        let ledger = GRDBQuotaLedger(database: try FrostboxDatabase(path: config.databasePath, logger: quiet), budgets: config.forecasts.budgets)
        return try await ledger.usage(at: Int64(Date().timeIntervalSince1970)).lastDay
    }

    @Test("503s, truncated 200s and a 429: after each run the ledger holds the mock's charged weight")
    func ledgerMatchesServerAfterFaults() async throws {
        let faults = MockFaults(serverErrorRate: 0.2, truncateRate: 0.2, nextRateLimits: ["other"])
        let mock = MockOpenMeteo(scenario: MockScenario(faults: faults), logger: Self.quiet)
        try await mock.withRunning { url in
            try await Self.withDatabase { base in
                var config = base
                config.forecasts.baseURL = url
                try await Self.subscribe(config, now: Int64(Date().timeIntervalSince1970))
                for run in 1...2 {
                    _ = try? await NotifierCommands.notifyOnce(config: config, dryRun: false, logger: Self.quiet, report: { _ in })
                    let charged = mock.counters.chargedWeight
                    let held = try await Self.ledgerWeight(config)
                    #expect(held == charged, "after run \(run)")
                }
                #expect(mock.counters.requests > 5)
                #expect(mock.counters.chargedWeight > mock.counters.weight - 1e-9)
            }
        }
    }

    @Test("a daily budget smaller than the boxes, at the server and in the ledger: no run draws a 429")
    func smallBudgetNoDaily429() async throws {
        let faults = MockFaults(serverErrorRate: 0.2, truncateRate: 0.2)
        let mock = MockOpenMeteo(scenario: MockScenario(budgets: MockBudgets(day: 100), faults: faults), logger: Self.quiet)
        try await mock.withRunning { url in
            try await Self.withDatabase { base in
                var config = base
                config.forecasts.baseURL = url
                config.forecasts.budgets = QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 100)
                try await Self.subscribe(config, now: Int64(Date().timeIntervalSince1970))
                for run in 1...3 {
                    _ = try? await NotifierCommands.notifyOnce(config: config, dryRun: false, logger: Self.quiet, report: { _ in })
                    #expect(mock.counters.statuses["429"] == nil, "run \(run) drew a 429")
                    let held = try await Self.ledgerWeight(config)
                    #expect(held == mock.counters.chargedWeight, "after run \(run)")
                }
                #expect(mock.counters.chargedWeight <= 100)
                #expect(mock.counters.requests > 3)
            }
        }
    }

    @Test("frostbox forecast against a server that is not there: at once, a sentence, a hint at --base-url, nothing charged")
    func forecastUnreachable() async throws {
        // A port that refuses connections throughout (bound, never listening).
        let port = try ClosedPort()
        let closed = port.url
        defer { withExtendedLifetime(port) {} }
        try await Self.withDatabase { base in
            var config = base
            config.forecasts.baseURL = closed
            let report = try await FrostboxApplication.forecastReport(
                near: try Coordinate(latitude: 60.19, longitude: 25.01), rule: .default, config: config, logger: Self.quiet)
            // Once, with no retries (OpenMeteoClientTests counts the attempts): no request made,
            // nothing charged, both asserted below rather than a wall-clock bound.
            guard case .failure = report.result else {
                Issue.record("a forecast from a server that is not there")
                return
            }
            // The hint is given only for a server that could not be reached.
            #expect(report.hint?.contains("--base-url") == true)
            #expect(report.requestsMade == 0)
            #expect(report.weightUsed == 0)
            // What the person sees: the sentence and the hint, exit status 1.
            let cli = try await CommandLineTests.frostboxAsync(
                ["forecast", "--near", "60.19,25.01", "--base-url", closed, "--db", config.databasePath])
            #expect(cli.status == 1)
            #expect(
                cli.output.contains(
                    "forecast unavailable: Could not connect to the forecast server at \(closed): the connection was refused (is it running, and is the port right?)."
                ), "\(cli.output)")
            #expect(cli.output.contains("hint: ") && cli.output.contains("--base-url"))
            let held = try await Self.ledgerWeight(config)
            #expect(held == 0)
        }
    }
}
