import FrostboxCore
import FrostboxDoubles
import FrostboxForecasting
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Testing

@Suite("Run-aware forecasts: meta.json against the mock, a box fetched again only for a new run")
struct ModelRunTests {
    static let start: Int64 = 1_774_000_000 / 10_800 * 10_800
    static let quiet = Logger(label: "runs", factory: { _ in SwiftLogNoOpLogHandler() })
    static let roomy = QuotaBudgets(perMinute: 1_000_000, perHour: 1_000_000, perDay: 1_000_000)
    static let berlin = row(30, latitude: 52.5, longitude: 13.4)
    static let chicago = row(20, latitude: 41.9, longitude: -87.6)

    /// A metadata client; generous deadlines unless a test wants a timeout (a loaded machine must not make answers late).
    static func meta(_ h: MockHarness, timeout: Double = 60) -> OpenMeteoMetaClient {
        var configuration = h.client.configuration
        configuration.metaTimeoutSeconds = timeout
        return OpenMeteoMetaClient(httpClient: { [http = h.http] in http }, configuration: configuration, logger: quiet)
    }

    static func provider(
        _ h: MockHarness, models: ForecastModels, ledger: InMemoryQuotaLedger, cache: InMemoryForecastCache = InMemoryForecastCache(),
        metaTimeout: Double = 60, logger: Logger = quiet
    ) -> CachedForecastProvider {
        let board = ModelRunBoard(source: meta(h, timeout: metaTimeout), logger: logger)
        return CachedForecastProvider(
            fetcher: h.client, cache: cache, ledger: ledger, freshness: ForecastFreshness(ttlSeconds: 3_600), clock: h.clock,
            runAwareness: .init(board: board, models: models, freshness: RunFreshness(fallback: ForecastFreshness(ttlSeconds: 3_600))),
            logger: logger)
    }

    /// The `initialised`-hour run of a domain, available 90 minutes later.
    static func run(_ domain: String, initialised: Int64) -> MockModelRuns.Run {
        MockModelRuns.Run(domain: domain, initialisedAt: initialised, availableAt: initialised + 5_400)
    }

    @Test("meta.json decodes to the model's run; unpublished is notPublished, a 500 remote, a hang a timeout")
    func metaClient() async throws {
        try await MockHarness.run(MockScenario(now: Self.start)) { h in
            h.mock.runs.publish(Self.run("dwd_icon_d2", initialised: Self.start))
            let client = Self.meta(h, timeout: 30)
            #expect(client.url(for: "icon_d2").hasSuffix("/data/dwd_icon_d2/static/meta.json"))
            let found = await client.latestRun(of: "icon_d2")
            #expect(found.value == ModelRun(model: "icon_d2", initialisedAt: Self.start, availableAt: Self.start + 5_400))
            #expect(await client.latestRun(of: "icon_eu").failure == .notPublished)
            h.mock.runs.setFaults(.init(status: 500))
            #expect(await client.latestRun(of: "icon_d2").failure == .remote(status: 500))
            h.mock.runs.setFaults(.init(hangMilliseconds: 5_000))
            #expect(await Self.meta(h, timeout: 0.5).latestRun(of: "icon_d2").failure == .timeout)
            #expect(h.mock.counters.requests == 0)
        }
    }

    @Test("hourly runs over a day with a 3-hourly model: each box fetched 8 times, not 24; one meta request per run; meta never charged")
    func simulatedDay() async throws {
        let boxes = Self.berlin
        try await MockHarness.run(MockScenario(now: Self.start)) { h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = Self.provider(h, models: .models(["icon_d2"]), ledger: ledger)
            var runChecks = 0
            var currentByRun = 0
            // The first look comes as a run has been out for its consistency delay; then one an hour.
            try await h.clock.sleep(seconds: 6_000)
            for _ in 0..<24 {
                let now = h.clock.now()
                // A run every 3 hours, available 90 minutes after its initialisation.
                let newest = (now - 5_400 - 600) / 10_800 * 10_800
                h.mock.runs.publish(Self.run("dwd_icon_d2", initialised: newest))
                let batch = await provider.forecasts(for: boxes, now: now)
                #expect(batch.failures.isEmpty)
                runChecks += batch.runChecks
                currentByRun += batch.currentByRun
                try await h.clock.sleep(seconds: 3_600)
            }
            #expect(h.mock.counters.locations == 8 * boxes.count)
            #expect(h.mock.counters.requests == 8)
            #expect(runChecks == 24)
            #expect(currentByRun == 16 * boxes.count)
            #expect(h.mock.runs.requests == ["dwd_icon_d2": 24])
            #expect(try await ledger.usage(at: Self.start + 86_400).lastDay == Double(8 * boxes.count))
        }
    }

    @Test("best_match: a new run of a model some boxes do not depend on fetches only the boxes that do; no new run fetches nothing")
    func unrelatedModel() async throws {
        let watchList = try ModelWatchList(parsing: "43.2,-3.9,58.1,20.3=icon_d2; 21.1,-134.1,52.6,-60.9=gfs_hrrr; *=icon_global")
        try await MockHarness.run(MockScenario(now: Self.start)) { h in
            h.mock.runs.publish(Self.run("dwd_icon_d2", initialised: Self.start - 10_800))
            h.mock.runs.publish(Self.run("ncep_hrrr_conus", initialised: Self.start - 7_200))
            let provider = Self.provider(h, models: .bestMatch(watchList: watchList), ledger: InMemoryQuotaLedger(budgets: Self.roomy))
            let first = await provider.forecasts(for: Self.berlin + Self.chicago, now: Self.start)
            #expect(first.forecasts.count == 50)
            #expect(h.mock.counters.locations == 50)

            try await h.clock.sleep(seconds: 3_600)
            let quiet = await provider.forecasts(for: Self.berlin + Self.chicago, now: Self.start + 3_600)
            #expect(quiet.requestsMade == 0)
            #expect(quiet.currentByRun == 50)
            #expect(h.mock.counters.locations == 50)

            h.mock.runs.publish(Self.run("ncep_hrrr_conus", initialised: Self.start - 3_600))
            try await h.clock.sleep(seconds: 3_600)
            let hrrr = await provider.forecasts(for: Self.berlin + Self.chicago, now: Self.start + 7_200)
            #expect(hrrr.currentByRun == 30)
            #expect(Set(hrrr.forecasts.filter { $0.value.source == .fetched }.keys) == Set(Self.chicago))
            #expect(h.mock.counters.locations == 70)
            #expect(hrrr.forecasts[Self.chicago[0]]?.forecast.runs.map(\.model) == ["gfs_hrrr"])
        }
    }

    @Test("meta down (500, then hanging): the time-based TTL decides, with one warning a look, and forecasts still come")
    func metaDown() async throws {
        let logs = RecordingLogHandler.Store()
        try await MockHarness.run(MockScenario(now: Self.start)) { h in
            h.mock.runs.setFaults(.init(status: 500))
            let provider = Self.provider(
                h, models: .models(["icon_d2"]), ledger: InMemoryQuotaLedger(budgets: Self.roomy), metaTimeout: 0.3,
                logger: logs.logger(level: .warning))
            let first = await provider.forecasts(for: Self.berlin, now: Self.start)
            #expect(first.forecasts.count == 30)
            #expect(first.forecasts.values.allSatisfy { $0.source == .fetched && $0.forecast.runs.isEmpty })
            try await h.clock.sleep(seconds: 3_599)
            let within = await provider.forecasts(for: Self.berlin, now: Self.start + 3_599)
            #expect(within.requestsMade == 0)
            #expect(within.currentByRun == 0)
            h.mock.runs.setFaults(.init(hangMilliseconds: 3_000))
            try await h.clock.sleep(seconds: 1)
            let after = await provider.forecasts(for: Self.berlin, now: Self.start + 3_600)
            #expect(after.forecasts.values.allSatisfy { $0.source == .fetched })
            #expect(h.mock.counters.locations == 60)
            let warnings = logs.all.filter { $0.message.hasPrefix("model run metadata unavailable") }
            #expect(warnings.count == 2)
        }
    }
}
