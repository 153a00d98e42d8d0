import FrostboxCore
import FrostboxDoubles
import FrostboxForecasting
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Testing

@Suite("CachedForecastProvider: cache, batches and quota against the mock")
struct CachedForecastProviderTests {
    static let now: Int64 = 1_774_000_000
    static let quiet = Logger(label: "provider", factory: { _ in SwiftLogNoOpLogHandler() })

    static func provider(_ h: MockHarness, cache: InMemoryForecastCache, ledger: InMemoryQuotaLedger, wait: Double = 60) -> CachedForecastProvider {
        CachedForecastProvider(
            fetcher: h.client, cache: cache, ledger: ledger, clock: h.clock,
            settings: .init(maximumQuotaWaitSeconds: wait), logger: quiet)
    }

    static let roomy = QuotaBudgets(perMinute: 1_000_000, perHour: 1_000_000, perDay: 1_000_000)

    @Test("⌈boxes / batch⌉ requests of one weight per box; a second run within the TTL makes no call; after it, one again")
    func cacheThenFetch() async throws {
        let boxes = row(2_500)
        try await MockHarness.run(MockScenario(now: Self.now)) { h in
            let cache = InMemoryForecastCache()
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = Self.provider(h, cache: cache, ledger: ledger)
            let first = await provider.forecasts(for: boxes, now: Self.now)
            #expect(first.forecasts.count == 2_500)
            #expect(first.failures.isEmpty)
            #expect(first.requestsMade == 3)
            #expect(first.weightUsed == 2_500)
            #expect(first.forecasts.values.allSatisfy { $0.source == .fetched })
            #expect(h.mock.counters.batchSizes.sorted(by: >) == [1_000, 1_000, 500])
            let usage = try await ledger.usage(at: Self.now)
            #expect(usage.lastDay == 2_500)

            let second = await provider.forecasts(for: boxes, now: Self.now + 3_599)
            #expect(second.forecasts.count == 2_500)
            #expect(second.forecasts.values.allSatisfy { $0.source == .cache })
            #expect(second.requestsMade == 0)
            #expect(second.weightUsed == 0)
            #expect(h.mock.counters.requests == 3)

            let third = await provider.forecasts(for: Array(boxes.prefix(10)), now: Self.now + 3_600)
            #expect(third.forecasts.values.allSatisfy { $0.source == .fetched })
            #expect(third.requestsMade == 1)
            #expect(h.mock.counters.requests == 4)
        }
    }

    @Test("duplicates are asked for once; every box asked comes back exactly once")
    func duplicates() async throws {
        let boxes = row(3)
        try await MockHarness.run(MockScenario(now: Self.now)) { h in
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: InMemoryQuotaLedger(budgets: Self.roomy))
                .forecasts(for: boxes + boxes, now: Self.now)
            #expect(Set(batch.forecasts.keys) == Set(boxes))
            #expect(h.mock.counters.locations == 3)
        }
    }

    @Test("a daily budget smaller than the boxes: one request packed to the budget, the rest budget-exhausted, no call the second time")
    func dailyBudgetSmallerThanBoxes() async throws {
        let boxes = row(1_200)
        try await MockHarness.run(MockScenario(now: Self.now)) { h in
            let cache = InMemoryForecastCache()
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 500))
            let provider = Self.provider(h, cache: cache, ledger: ledger)
            let first = await provider.forecasts(for: boxes, now: Self.now)
            #expect(first.forecasts.count == 500)
            #expect(first.failures.count == 700)
            #expect(first.requestsMade == 1)
            #expect(first.weightUsed == 500)
            #expect(Set(first.failures.values) == [.budgetExhausted(retryAfter: Self.now + 86_400)])
            #expect(h.mock.counters.locations == 500)

            let second = await provider.forecasts(for: boxes, now: Self.now + 60)
            #expect(second.forecasts.values.filter { $0.source == .cache }.count == 500)
            #expect(second.failures.count == 700)
            #expect(second.requestsMade == 0)
            #expect(h.mock.counters.requests == 1)
        }
    }

    @Test("the minute window paces a run: batches of what fits, waiting for the window to free")
    func minutePacing() async throws {
        let boxes = row(250)
        try await MockHarness.run(MockScenario(now: Self.now)) { h in
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 100, perHour: 5_000, perDay: 10_000))
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: ledger).forecasts(for: boxes, now: Self.now)
            #expect(batch.forecasts.count == 250)
            #expect(batch.requestsMade == 3)
            #expect(h.mock.counters.batchSizes == [100, 100, 50])
            #expect(h.clock.sleeps == [60, 60])
            #expect(ledger.charges.map(\.charge.at) == [Self.now, Self.now + 60, Self.now + 120])
        }
    }

    @Test("no request is started that would break a budget, even when the wait would be short but is not allowed")
    func noWaitAllowed() async throws {
        try await MockHarness.run(MockScenario(now: Self.now)) { h in
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 100, perHour: 5_000, perDay: 10_000))
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: ledger, wait: 0).forecasts(for: row(150), now: Self.now)
            #expect(batch.forecasts.count == 100)
            #expect(Set(batch.failures.values) == [.budgetExhausted(retryAfter: Self.now + 60)])
            #expect(h.mock.counters.requests == 1)
        }
    }

    @Test("a 503 answer counts 1; every attempt is charged before it starts")
    func failedRequestsCountOne() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextStatuses: [503, 503, 503, 503]), now: Self.now)) { h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: ledger).forecasts(for: row(40), now: Self.now)
            #expect(batch.failures.count == 40)
            #expect(Set(batch.failures.values) == [.remote(status: 503, reason: "Injected failure 503")])
            #expect(batch.requestsMade == 4)
            #expect(batch.weightUsed == 4)
            #expect(ledger.charges.map(\.charge.weight) == [1, 1, 1, 1])
            #expect(ledger.charges.allSatisfy { $0.settled })
        }
    }

    @Test("a retry that the budget cannot carry is not started")
    func retryNeedsBudget() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextStatuses: [503]), now: Self.now)) { h in
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 10))
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: ledger).forecasts(for: row(10), now: Self.now)
            #expect(batch.requestsMade == 1)
            #expect(batch.weightUsed == 1)
            #expect(Set(batch.failures.values) == [.budgetExhausted(retryAfter: Self.now + 86_400)])
            #expect(h.mock.counters.requests == 1)
        }
    }

    @Test("a 429 for the hourly limit pauses every later request until the next full hour, this run and the next")
    func hourlyPause() async throws {
        let boxes = row(30)
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["hour"]), now: Self.now), configure: { $0.batchSize = 10 }) { h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: ledger, clock: h.clock,
                settings: .init(maximumConcurrentRequests: 1), logger: Self.quiet)
            let reason = "Hourly API request limit exceeded. Please try again in the next hour."
            let nextHour = (Self.now / 3_600 + 1) * 3_600
            let batch = await provider.forecasts(for: boxes, now: Self.now)
            #expect(batch.failures.count == 30)
            #expect(Set(batch.failures.values) == [.rateLimited(reason: reason, retryAfter: nextHour)])
            #expect(batch.requestsMade == 1)
            let hold = try await ledger.activeHold(at: Self.now)
            #expect(hold == QuotaHold(until: nextHour, reason: reason))
            let again = await provider.forecasts(for: boxes, now: Self.now + 120)
            #expect(again.requestsMade == 0)
            #expect(h.mock.counters.requests == 1)
            let later = await provider.forecasts(for: boxes, now: nextHour)
            #expect(later.forecasts.count == 30)
        }
    }

    @Test("a 429 that outlasts its wait stops the run: the boxes left are rate-limited, not asked for")
    func rateLimitStopsRun() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["minute", "minute"]), now: Self.now), configure: { $0.batchSize = 10 }) {
            h in
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: InMemoryQuotaLedger(budgets: Self.roomy), clock: h.clock,
                settings: .init(maximumQuotaWaitSeconds: 0, maximumConcurrentRequests: 1), logger: Self.quiet)
            let batch = await provider.forecasts(for: row(50), now: Self.now)
            #expect(batch.failures.count == 50)
            #expect(batch.requestsMade == 2)
            #expect(
                batch.failures.values.allSatisfy {
                    if case .rateLimited = $0 { return true }
                    return false
                })
            #expect(h.mock.counters.requests == 2)
        }
    }

    @Test("a source that keeps failing stops the run after a few batches instead of trying them all")
    func circuitBreaker() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(truncateRate: 1), now: Self.now), configure: { $0.batchSize = 10 }) { h in
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: InMemoryQuotaLedger(budgets: Self.roomy), clock: h.clock,
                settings: .init(maximumConcurrentRequests: 1, maximumConsecutiveFailures: 3), logger: Self.quiet)
            let batch = await provider.forecasts(for: row(100), now: Self.now)
            #expect(batch.failures.count == 100)
            #expect(batch.forecasts.isEmpty)
            #expect(batch.requestsMade == 3)
        }
    }

    @Test("frost forced by the scenario shows in the default rule's verdict; other boxes stay clear")
    func scenarioFrost() async throws {
        let cold = Coordinate(uncheckedLatitude: 0.0, longitude: 10.0).box
        let warm = Coordinate(uncheckedLatitude: 0.5, longitude: 10.0).box
        let scenario = MockScenario(frost: [FrostSpot(latitude: 0.0, longitude: 10.0, minimumC: -3, nights: [1])], now: Self.now)
        try await MockHarness.run(scenario) { h in
            let batch = await Self.provider(h, cache: InMemoryForecastCache(), ledger: InMemoryQuotaLedger(budgets: Self.roomy))
                .forecasts(for: [cold, warm], now: Self.now)
            let coldVerdict = FrostRule.default.evaluate(try #require(batch.forecasts[cold]).forecast.hours)
            #expect(coldVerdict.level == .hardFreeze)
            #expect(coldVerdict.minimumC == -3)
            #expect(coldVerdict.coldest?.local.hour == 5)
            #expect(coldVerdict.nights.filter { $0.level > .none }.count == 1)
            #expect(FrostRule.default.evaluate(try #require(batch.forecasts[warm]).forecast.hours).level == .none)
        }
    }

    /// Fault mixes the ledger must follow the server through. An answer that arrives after the
    /// deadline is charged in full by the client whatever its status (the safe side), so on a
    /// loaded machine a short deadline would make the ledger hold more than the server charged
    /// for a late error answer, or for a request it had not even read yet: the mix with answers
    /// after the deadline (15 s; they hang until the mock stops) has only 200s, the others keep
    /// the harness's 60 s deadline.
    struct FaultMix: Sendable, CustomTestStringConvertible {
        let name: String
        let faults: MockFaults
        /// Requests the three runs make at least (a daily 429 holds the rest of the day).
        var minimumRequests = 11
        /// The request deadline, seconds.
        var deadline = 60.0
        var testDescription: String { name }

        static let all = [
            FaultMix(name: "truncated 200s", faults: MockFaults(truncateRate: 0.4)),
            FaultMix(name: "503s", faults: MockFaults(serverErrorRate: 0.4)),
            FaultMix(name: "answers after the deadline", faults: MockFaults(truncateRate: 0.3, hangNext: 2, hangMilliseconds: 60_000), deadline: 15),
            FaultMix(name: "minutely 429s", faults: MockFaults(nextRateLimits: ["minute", "other", "minute"])),
            FaultMix(name: "hourly then daily 429", faults: MockFaults(nextRateLimits: ["hour", "day"]), minimumRequests: 2),
            FaultMix(name: "all at once", faults: MockFaults(serverErrorRate: 0.2, truncateRate: 0.2, nextStatuses: [500, 404], nextRateLimits: ["other"])),
        ]
    }

    @Test("after every run the ledger holds exactly the weight the server charged", arguments: FaultMix.all)
    func ledgerFollowsServer(_ mix: FaultMix) async throws {
        let boxes = row(200)
        try await MockHarness.run(
            MockScenario(faults: mix.faults, now: Self.now),
            configure: {
                $0.batchSize = 20
                $0.requestTimeoutSeconds = mix.deadline
            }
        ) { h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: ledger, clock: h.clock,
                settings: .init(maximumConcurrentRequests: 2, maximumConsecutiveFailures: 100), logger: Self.quiet)
            var at = Self.now
            for _ in 0..<3 {
                let batch = await provider.forecasts(for: boxes, now: at)
                let charged = h.mock.counters.chargedWeight
                let held = try await ledger.usage(at: at + 600).lastDay
                #expect(held == charged)
                let unsettled = ledger.charges.filter { !$0.settled }.count
                #expect(unsettled == 0)
                #expect(batch.weightUsed <= charged)
                at += 7_200
            }
            #expect(h.mock.counters.requests >= mix.minimumRequests)
        }
    }

    @Test("the weight a run reports is what it added to the ledger")
    func runWeightMatchesLedger() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(serverErrorRate: 0.3, truncateRate: 0.3), now: Self.now), configure: { $0.batchSize = 10 }) {
            h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: ledger, clock: h.clock,
                settings: .init(maximumConsecutiveFailures: 100), logger: Self.quiet)
            let batch = await provider.forecasts(for: row(100), now: Self.now)
            #expect(batch.weightUsed == h.mock.counters.chargedWeight)
            #expect(batch.requestsMade == h.mock.counters.requests)
            let held = try await ledger.usage(at: Self.now).lastDay
            #expect(held == batch.weightUsed)
        }
    }

    @Test("a daily budget smaller than the boxes, with faults: runs never draw the server's daily 429")
    func smallDailyBudgetNeverDrawsDaily429() async throws {
        let boxes = row(300)
        let faults = MockFaults(serverErrorRate: 0.25, truncateRate: 0.25)
        try await MockHarness.run(MockScenario(budgets: MockBudgets(day: 120), faults: faults, now: Self.now), configure: { $0.batchSize = 20 }) { h in
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 120))
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: ledger, clock: h.clock,
                settings: .init(maximumConsecutiveFailures: 100, cacheRetentionSeconds: 0), logger: Self.quiet)
            // Runs an hour apart within one UTC day (the mock's clock stays on its frozen day).
            for run in 0..<6 {
                let batch = await provider.forecasts(for: boxes, now: Self.now + Int64(run) * 3_600)
                #expect(h.mock.counters.statuses["429"] == nil, "run \(run) drew a 429")
                let held = try await ledger.usage(at: Self.now + Int64(run) * 3_600).lastDay
                #expect(held == h.mock.counters.chargedWeight)
                #expect(batch.forecasts.count + batch.failures.count == boxes.count)
            }
            #expect(h.mock.counters.chargedWeight <= 120)
            #expect(h.mock.counters.chargedWeight >= 100)
        }
    }

    @Test("a minutely 429 is recorded in the ledger as the server's pause: no one starts a request before it ends")
    func minutelyPauseShared() async throws {
        try await MockHarness.run(MockScenario(faults: MockFaults(nextRateLimits: ["minute"]), now: Self.now), configure: { $0.batchSize = 10 }) { h in
            let ledger = InMemoryQuotaLedger(budgets: Self.roomy)
            let provider = CachedForecastProvider(
                fetcher: h.client, cache: InMemoryForecastCache(), ledger: ledger, clock: h.clock,
                settings: .init(maximumConcurrentRequests: 1), logger: Self.quiet)
            let batch = await provider.forecasts(for: row(30), now: Self.now)
            #expect(batch.forecasts.count == 30)
            #expect(h.mock.counters.statuses["429"] == 1)
            let hold = try #require(try await ledger.activeHold(at: Self.now))
            #expect(hold == QuotaHold(until: Self.now + 60, reason: "Minutely API request limit exceeded. Please try again in one minute."))
            let held = try await ledger.usage(at: Self.now + 120).lastDay
            #expect(held == h.mock.counters.chargedWeight)
            #expect(h.mock.counters.chargedWeight == 31)
            // Another process sharing the ledger is held too.
            let other = try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 30)
            #expect(other == .held(hold))
        }
    }
}
