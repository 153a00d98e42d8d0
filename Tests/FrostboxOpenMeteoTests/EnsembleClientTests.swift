import FrostboxCore
import FrostboxDoubles
import FrostboxForecasting
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Testing

/// Ensembles from `/v1/ensemble` (issue #47) against the mock, whose members lie evenly from
/// −spread to +spread around the deterministic temperature, so the share at or below each
/// threshold is known exactly.
@Suite("Ensembles: members and spread from the mock, weight charged, refetched only for a new run")
struct EnsembleClientTests {
    static let start: Int64 = 1_774_000_000 / 10_800 * 10_800
    static let quiet = Logger(label: "ensembles", factory: { _ in SwiftLogNoOpLogHandler() })
    static let roomy = QuotaBudgets(perMinute: 1_000_000, perHour: 1_000_000, perDay: 1_000_000)
    /// Warm (about 10 °C at dawn) but for the frost spot: every night's low is −0.4 °C at 05:00.
    static let boxes = row(3, latitude: 20, longitude: 100)
    static let scenario = MockScenario(
        frost: boxes.map { FrostSpot(latitude: $0.latitude, longitude: $0.longitude, minimumC: -0.4) }, now: start)

    static func client(_ h: MockHarness, models: [String], probability: ProbabilitySource = .members) -> OpenMeteoEnsembleClient {
        var configuration = h.client.configuration
        configuration.models = models
        return OpenMeteoEnsembleClient(client: h.client, configuration: configuration, probability: probability)
    }

    @Test("ICON-EPS, 40 members: P(≤ 0 °C) = 24/40, P(≤ −2 °C) = 5/40, P(≤ 3 °C) = 1 on every whole night; weight 4 a location, as the server charges")
    func membersShare() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let client = Self.client(h, models: ["icon_seamless"])
            #expect(client.weightPerLocation == 4)
            #expect(client.query(for: Self.boxes).contains("hourly=temperature_2m&"))
            let ensembles = try await client.ensembles(for: Self.boxes, gate: nil).get()
            #expect(ensembles.map(\.box) == Self.boxes)
            #expect(ensembles.allSatisfy { $0.memberCount == 40 && $0.model == "icon_seamless" })
            // The last night is cut at the horizon (18:00–23:00 only), so its low is not the spot's.
            let nights = ensembles.flatMap { FrostRule.default.probabilities(of: $0).dropLast() }
            #expect(nights.count >= 6)
            for night in nights {
                #expect(night.members == 40)
                #expect(night.probability(of: .freeze) == 0.6)
                // Member 4 lies at −0.4 − 1.59 = −1.99, answered as −2.0: at the threshold, so counted.
                #expect(night.probability(of: .hardFreeze) == 0.125)
                #expect(night.probability(of: .frostRisk) == 1)
            }
            #expect(h.mock.counters.chargedWeight == 4 * Double(Self.boxes.count))
            #expect(h.mock.counters.ensembleLocations == Self.boxes.count)
        }
    }

    @Test("several models pool their members (51 + 31); the weight counts every member")
    func pooledModels() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let client = Self.client(h, models: ["ecmwf_ifs025", "gfs025"])
            #expect(client.weightPerLocation == 8.2)
            let ensembles = try await client.ensembles(for: Self.boxes, gate: nil).get()
            #expect(ensembles.allSatisfy { $0.memberCount == 82 })
            #expect(abs(h.mock.counters.chargedWeight - 8.2 * Double(Self.boxes.count)) < 1e-9)
        }
    }

    @Test("a mean model: the mean and spread under a normal assumption, one weight a location")
    func meanAndSpread() async throws {
        try await MockHarness.run(Self.scenario) { h in
            let client = Self.client(h, models: ["ecmwf_ifs025_ensemble_mean"], probability: .spread)
            #expect(client.weightPerLocation == 1)
            #expect(client.query(for: Self.boxes).contains("hourly=temperature_2m,temperature_2m_spread&"))
            let ensembles = try await client.ensembles(for: Self.boxes, gate: nil).get()
            let night = try #require(ensembles.first.flatMap { FrostRule.default.probabilities(of: $0).dropFirst().first })
            let spread = (MockEnsembles.standardDeviation(of: 51, spread: 2) * 10).rounded() / 10
            let expected = FrostRule.normalProbability(atOrBelow: 0, mean: -0.4, spread: spread)
            #expect(abs(night.probability(of: .freeze) - expected) < 1e-9)
            #expect(night.meanAndSpread == MeanAndSpread(mean: -0.4, spread: spread))
            #expect(h.mock.counters.chargedWeight == Double(Self.boxes.count))
        }
    }

    @Test("run-aware: an ensemble is fetched again only when its model has a new run, whatever the hours between")
    func runAware() async throws {
        try await MockHarness.run(Self.scenario) { h in
            var meta = h.client.configuration
            meta.path = OpenMeteoSettings.ensemblePath
            let metaClient = OpenMeteoMetaClient(httpClient: { [http = h.http] in http }, configuration: meta, logger: Self.quiet)
            #expect(metaClient.url(for: "icon_seamless").hasSuffix("/data/dwd_icon_eps/static/meta.json"))
            #expect(metaClient.url(for: "ecmwf_ifs025_ensemble_mean").hasSuffix("/data/ecmwf_ifs025_ensemble/static/meta.json"))
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let cache = InMemoryEnsembleCache()
            let provider = CachedEnsembleProvider(
                fetcher: Self.client(h, models: ["icon_seamless"]), cache: cache, ledger: ledger, clock: h.clock,
                runAwareness: .init(
                    board: ModelRunBoard(source: metaClient, logger: Self.quiet), models: .models(["icon_seamless"]),
                    freshness: RunFreshness(fallback: ForecastFreshness(ttlSeconds: 3_600))),
                logger: Self.quiet)
            h.mock.runs.publish(.init(domain: "dwd_icon_eps", initialisedAt: Self.start - 21_600, availableAt: Self.start - 14_400))
            let first = await provider.ensembles(for: Self.boxes, now: Self.start)
            #expect(first.fetched == 3)
            #expect(first.weightUsed == 12)
            // Six hours on, no new run: nothing fetched, nothing charged.
            try await h.clock.sleep(seconds: 21_600)
            let quiet = await provider.ensembles(for: Self.boxes, now: Self.start + 21_600)
            #expect(quiet.fetched == 0)
            #expect(quiet.currentByRun == 3)
            #expect(quiet.requestsMade == 0)
            #expect(quiet.ensembles.count == 3)
            // The next run (12 hours later), out past its consistency delay: fetched again.
            h.mock.runs.publish(.init(domain: "dwd_icon_eps", initialisedAt: Self.start + 21_600, availableAt: Self.start + 28_800))
            try await h.clock.sleep(seconds: 9_000)
            let renewed = await provider.ensembles(for: Self.boxes, now: Self.start + 30_600)
            #expect(renewed.fetched == 3)
            #expect(renewed.ensembles.values.allSatisfy { $0.runs.map(\.initialisedAt) == [Self.start + 21_600] })
            #expect(h.mock.counters.ensembleRequests == 2 && h.mock.counters.requests == 0)
            #expect(try await ledger.usage(at: Self.start + 30_600).lastDay == 24)
        }
    }
}
