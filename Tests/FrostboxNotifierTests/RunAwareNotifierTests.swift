import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxForecasting
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// A `ForecastFetcher` answering what the test last set per box (as the model's latest run
/// would), stamped with the test clock's time; counts the boxes it was asked for.
final class RunFetcher: ForecastFetcher {
    private let state = Mutex<(forecasts: [GeoBox: BoxForecast], asked: Int)>(([:], 0))
    let clock: TestClock

    init(clock: TestClock) { self.clock = clock }

    var batchSize: Int { 100 }
    var weightPerLocation: Double { 1 }

    func set(_ forecast: BoxForecast) { state.withLock { $0.forecasts[forecast.box!] = forecast } }

    /// Boxes asked for so far.
    var asked: Int { state.withLock { $0.asked } }

    func forecasts(for boxes: [GeoBox], gate: (any RequestGate)?) async -> Result<[BoxForecast], ForecastFailure> {
        if let refusal = await gate?.admit(locations: boxes.count, attempt: 1) { return .failure(refusal) }
        let now = clock.now
        let found = state.withLock { state in
            state.asked += boxes.count
            return boxes.map { box -> BoxForecast in
                var forecast = state.forecasts[box]!
                forecast.fetchedAt = now
                return forecast
            }
        }
        await gate?.settle(locations: boxes.count, attempt: 1, report: AttemptReport(charge: .fullWeight, succeeded: true))
        return .success(found)
    }
}

/// A clock for the forecast side that reads the notifier's test clock.
struct TestForecastClock: ForecastClock {
    let clock: TestClock
    func now() -> Int64 { clock.now }
    func sleep(seconds: Double) async throws {}
    func randomFraction() -> Double { 0.5 }
}

@Suite("Notifier over a run-aware forecast provider")
struct RunAwareNotifierTests {
    @Test("a changed forecast is not fetched until its model has a new run; then the escalation is alerted, and the summary counts fresh-by-run")
    func newRunChangesVerdict() async throws {
        let h = Harness()
        let alice = Fixtures.token(0xa11ce)
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        let fetcher = RunFetcher(clock: h.clock)
        fetcher.set(Fixtures.frost(low: -1.6))
        let runs = ScriptedModelRunSource([ModelRun(model: "icon_d2", initialisedAt: Fixtures.afternoon - 10_800, availableAt: Fixtures.afternoon - 5_400)])
        let provider = CachedForecastProvider(
            fetcher: fetcher, cache: InMemoryForecastCache(), ledger: InMemoryQuotaLedger(), clock: TestForecastClock(clock: h.clock),
            runAwareness: .init(board: ModelRunBoard(source: runs), models: .models(["icon_d2"]), freshness: RunFreshness()),
            logger: Logger(label: "test"))
        let clock = h.clock
        let notifier = Notifier(store: h.store, forecasts: provider, push: h.push, logger: Logger(label: "test"), clock: { clock.now }, sleep: { _ in })

        let first = try await h.run(notifier)
        #expect(first.forecastsFetched == 1)
        #expect(first.alertsDelivered == 1)

        // The next model run will say hard freeze, but it is not out yet: nothing fetched, nothing sent.
        fetcher.set(Fixtures.frost(low: -7))
        h.clock.advance(3_600)
        let quiet = try await h.run(notifier)
        #expect(quiet.forecastsFreshByRun == 1)
        #expect(quiet.forecastsFetched == 0)
        #expect(quiet.line.contains("fresh-by-run=1"))
        #expect(fetcher.asked == 1)
        #expect(h.push.sent.count == 1)

        runs.publish(ModelRun(model: "icon_d2", initialisedAt: Fixtures.afternoon - 3_600, availableAt: Fixtures.afternoon + 1_800))
        h.clock.advance(3_600)
        let escalated = try await h.run(notifier)
        #expect(escalated.forecastsFetched == 1)
        #expect(escalated.forecastsFreshByRun == 0)
        #expect(escalated.alertsPlanned == 1)
        #expect(h.push.sent.count == 2)
        #expect(fetcher.asked == 2)
        #expect(runs.asked == ["icon_d2": 3])
    }
}
