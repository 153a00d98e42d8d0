import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxNotifier
import FrostboxSQLite
import Logging
import MockOpenMeteo
import Testing

/// Alerts by chance of frost end to end (issue #47): the app's wiring over a real SQLite
/// file, the real forecast and ensemble clients against the mock Open-Meteo (whose 40 ICON-EPS
/// members lie evenly from −2 °C to +2 °C around the forecast, so the share below each
/// threshold is known), and a recording push sender.
@Suite("Chance of frost end to end")
struct ProbabilityEndToEndTests {
    /// 2026-07-15T12:00Z: 15:00 in Helsinki, a mild summer day, so only the frost spot freezes.
    static let now: Int64 = 1_784_116_800
    static let helsinki = try! Coordinate(latitude: 60.17, longitude: 24.94)
    /// Tonight's low −0.4 °C at 05:00: members at −2.4 … +1.6 °C, 24 of 40 at or below 0 °C,
    /// 5 at or below −2 °C (one rounds to −2.0), all 40 at or below 3 °C.
    static let scenario = MockScenario(
        frost: [FrostSpot(latitude: helsinki.latitude, longitude: helsinki.longitude, minimumC: -0.4, nights: [0])], now: now)

    static func token(_ prefix: String) -> DeviceToken {
        DeviceToken(trusted: prefix + String(repeating: "0", count: 62))
    }

    let alice = token("a1")
    let bob = token("b2")
    let carol = token("c3")

    func config(directory: URL, mockURL: String, hourBudget: Double = 5_000) -> FrostboxSettings {
        var config = FrostboxSettings()
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        config.forecasts.baseURL = mockURL
        config.forecasts.probability = .members
        config.forecasts.budgets.perHour = hourBudget
        return config
    }

    func run(_ components: FrostboxApplication.Components, config: FrostboxSettings, push: RecordingPushSender) async throws -> NotifyRunSummary {
        let notifier = Notifier(
            store: GRDBNotifierStore(database: try #require(components.database.sqlite)), forecasts: components.forecasts.provider, push: push,
            planner: AlertPlanner(defaultMinProbability: config.forecasts.defaultMinProbability), configuration: config.notifier,
            logger: Logger(label: "e2e"), clock: { Self.now }, ensembles: components.forecasts.ensembles)
        guard case .completed(let summary) = try await notifier.run() else { throw CancellationError() }
        return summary
    }

    func subscribe(_ components: FrostboxApplication.Components) async throws {
        for (token, name, minimum) in [(alice, "Home", nil), (bob, "Cabin", 0.7), (carol, "Shed", 0.0)] as [(DeviceToken, String, Double?)] {
            _ = try await components.subscriptions.subscribe(
                token, to: NewSubscription(coordinate: Self.helsinki, name: try PlaceName(name), settings: AlertSettings(minProbability: minimum)),
                at: Self.now - 86_400)
        }
    }

    @Test("each subscription by its own minimum: 60 % freeze, 100 % frost risk, or the forecast alone; the ensemble charged 4 and fetched once")
    func byChance() async throws {
        let mock = MockOpenMeteo(scenario: Self.scenario)
        try await mock.withRunning { url in
            let directory = try TemporaryDirectory(prefix: "frostbox-probability")
            let config = config(directory: directory.url, mockURL: url)
            let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
            try await subscribe(components)
            let push = RecordingPushSender()
            let summary = try await run(components, config: config, push: push)
            let sent = Dictionary(uniqueKeysWithValues: push.sent.map { ($0.token, $0.content) })
            #expect(sent[alice]?.frost?.level == "freeze")
            #expect(sent[alice]?.frost?.probability == 60)
            #expect(sent[alice]?.body == "Frost likely tonight: 60 % chance of 0 °C or lower at Home")
            #expect(sent[bob]?.frost?.level == "frost-risk")
            #expect(sent[bob]?.frost?.probability == 100)
            #expect(sent[carol]?.frost?.level == "freeze")
            #expect(sent[carol]?.frost?.probability == nil)
            #expect(sent[carol]?.bodyLocKey == "FROST_FREEZE_TONIGHT")
            #expect(summary.ensemblesFetched == 1)
            #expect(summary.probabilityFallback == 0)
            // One forecast (weight 1) and one 40-member ensemble over 3 days (weight 4).
            #expect(summary.weightUsed == 5)
            #expect(mock.counters.ensembleRequests == 1)
            #expect(mock.counters.chargedWeight == 5)

            // The stored run says the same; a second run takes the ensemble from the cache.
            let again = try await run(components, config: config, push: push)
            #expect(again.ensemblesCached == 1)
            #expect(again.ensemblesFetched == 0)
            #expect(mock.counters.ensembleRequests == 1)
            #expect(again.alertsPlanned == 0)
            try await components.forecasts.shutdown()
        }
    }

    @Test("a budget that covers the forecast but not the ensemble: the box falls back to the forecast alone, and the run says so")
    func budgetFirst() async throws {
        let mock = MockOpenMeteo(scenario: Self.scenario)
        try await mock.withRunning { url in
            let directory = try TemporaryDirectory(prefix: "frostbox-probability")
            let config = config(directory: directory.url, mockURL: url, hourBudget: 3)
            let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
            try await subscribe(components)
            let push = RecordingPushSender()
            let summary = try await run(components, config: config, push: push)
            #expect(summary.probabilityFallback == 1)
            #expect(summary.ensemblesFetched == 0)
            #expect(summary.forecastsFetched == 1)
            #expect(mock.counters.ensembleRequests == 0)
            // Judged by the forecast's −0.4 °C: a freeze for everyone, without a percentage.
            #expect(push.sent.count == 3)
            #expect(push.sent.allSatisfy { $0.content.frost?.level == "freeze" && $0.content.frost?.probability == nil })
            #expect(summary.line.contains("probability_fallback=1"))
            try await components.forecasts.shutdown()
        }
    }
}
