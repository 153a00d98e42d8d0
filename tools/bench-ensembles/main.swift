// bench-ensembles: what the chance of frost (issue #47) costs in quota. N boxes through the
// live providers (Open-Meteo forecast and ensemble clients, meta.json, SQLite quota ledger,
// forecast and ensemble caches) against the in-process mock Open-Meteo, over 24 simulated
// hourly notify runs, side by side in one invocation, every one run-aware:
//
// - off: the forecast alone (icon_d2, a run every 3 hours);
// - spread: plus an ensemble-mean model's mean and spread (ecmwf_ifs025_ensemble_mean, a run
//   every 12 hours);
// - members: plus every ICON-EPS member (icon_seamless, 40 members, a run every 12 hours).
//
// Each run is available 90 minutes after its initialisation (ensembles 6 hours) and counted
// on 10 minutes later. Prints requests and weight per day, forecasts and ensembles apart, and
// the ratio to off.
//
//   swift build -c release --scratch-path .build-release --product bench-ensembles
//   .build-release/release/bench-ensembles [--boxes 10000] [--days 3]
import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxForecasting
import FrostboxOpenMeteo
import FrostboxSQLite
import Logging
import MockOpenMeteo
import Synchronization

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

let boxCount = option("--boxes").flatMap(Int.init) ?? 10_000
let days = option("--days").flatMap(Int.init) ?? 3
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
// Distinct boxes over central Europe, row by row.
let boxes: [GeoBox] = (0..<boxCount).map { i in GeoBox(latitudeIndex: 900 + i / 600, longitudeIndex: -200 + i % 600) }
let budgets = QuotaBudgets(perMinute: 1e12, perHour: 1e12, perDay: 1e12)
let start: Int64 = 1_774_000_000 / 43_200 * 43_200

/// The simulated wall clock: the fetchers stamp what they fetch with it; it never sleeps for real.
final class SimulatedClock: ForecastClock {
    private let value = Mutex<Int64>(start)
    func now() -> Int64 { value.withLock { $0 } }
    func set(_ t: Int64) { value.withLock { $0 = t } }
    func sleep(seconds: Double) async throws {}
    func randomFraction() -> Double { 0.5 }
}

/// A model, its metadata domain, run interval and how long after initialisation a run is out.
typealias Model = (name: String, domain: String, interval: Int64, delay: Int64)

let deterministic: Model = ("icon_d2", "dwd_icon_d2", 10_800, 5_400)

/// One setting of `forecast.probability` and its ensemble model.
struct Strategy {
    let name: String
    let probability: ProbabilitySource
    let ensemble: Model?
}

struct Day {
    var requests = 0
    var ensembleRequests = 0
    var forecastWeight = 0.0
    var ensembleWeight = 0.0
    var ensembleFetches: [Int] = []
    var failures = 0
    var seconds = 0.0
}

let mock = MockOpenMeteo(scenario: MockScenario(now: start), logger: quiet)
let http = HTTPClient(eventLoopGroupProvider: .singleton)

func publish(_ model: Model, now: Int64) {
    let initialised = (now - model.delay - 600) / model.interval * model.interval
    mock.runs.publish(.init(domain: model.domain, initialisedAt: initialised, availableAt: initialised + model.delay, updateIntervalSeconds: model.interval))
}

func simulate(_ strategy: Strategy, baseURL: String) async throws -> Day {
    mock.reset()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-ensembles-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try FrostboxDatabase(path: directory.appendingPathComponent("bench.sqlite").path, logger: quiet)
    let clock = SimulatedClock()
    let ledger = GRDBQuotaLedger(database: database, budgets: budgets)
    let settings = OpenMeteoSettings(baseURL: baseURL, forecastDays: days, requestTimeoutSeconds: 600, models: [deterministic.name])
    let client = OpenMeteoClient(httpClient: http, configuration: settings, clock: clock, logger: quiet)
    let meta = OpenMeteoMetaClient(httpClient: { http }, configuration: settings, logger: quiet)
    let forecasts = CachedForecastProvider(
        fetcher: client, cache: GRDBForecastCache(database: database), ledger: ledger, freshness: ForecastFreshness(ttlSeconds: 3_600),
        clock: clock,
        runAwareness: .init(board: ModelRunBoard(source: meta, logger: quiet), models: .models([deterministic.name]), freshness: RunFreshness()),
        logger: quiet)
    var ensembles: CachedEnsembleProvider?
    if let model = strategy.ensemble {
        var ensembleSettings = settings
        ensembleSettings.models = [model.name]
        let fetcher = OpenMeteoEnsembleClient(client: client, configuration: ensembleSettings, probability: strategy.probability)
        let ensembleMeta = OpenMeteoMetaClient(httpClient: { http }, configuration: fetcher.configuration, logger: quiet)
        ensembles = CachedEnsembleProvider(
            fetcher: fetcher, cache: GRDBEnsembleCache(database: database), ledger: ledger, freshness: ForecastFreshness(ttlSeconds: 3_600),
            clock: clock,
            runAwareness: .init(board: ModelRunBoard(source: ensembleMeta, logger: quiet), models: .models([model.name]), freshness: RunFreshness()),
            logger: quiet)
    }
    var day = Day()
    let stopwatch = ContinuousClock.now
    for hour in Int64(0)..<24 {
        // Notify runs on the hour, the first as a run has just been counted on.
        let now = start + 22_200 + hour * 3_600
        clock.set(now)
        publish(deterministic, now: now)
        if let model = strategy.ensemble { publish(model, now: now) }
        let batch = await forecasts.forecasts(for: boxes, now: now)
        day.requests += batch.requestsMade
        day.forecastWeight += batch.weightUsed
        day.failures += batch.failures.count
        if let ensembles {
            let chance = await ensembles.ensembles(for: boxes, now: now)
            day.ensembleRequests += chance.requestsMade
            day.ensembleWeight += chance.weightUsed
            day.ensembleFetches.append(chance.fetched)
            day.failures += chance.failures.count
        }
        FileHandle.standardError.write(Data("\(strategy.name) hour \(hour): forecast weight \(batch.weightUsed)\n".utf8))
    }
    day.seconds = (ContinuousClock.now - stopwatch) / .seconds(1)
    return day
}

let strategies = [
    Strategy(name: "off (forecast alone)", probability: .off, ensemble: nil),
    Strategy(
        name: "spread (ecmwf_ifs025_ensemble_mean)", probability: .spread, ensemble: ("ecmwf_ifs025_ensemble_mean", "ecmwf_ifs025_ensemble", 43_200, 21_600)),
    Strategy(name: "members (icon_seamless, 40)", probability: .members, ensemble: ("icon_seamless", "dwd_icon_eps", 43_200, 21_600)),
]
let measured: [Day] = try await mock.withRunning { baseURL in
    var results: [Day] = []
    for strategy in strategies {
        results.append(try await simulate(strategy, baseURL: baseURL))
    }
    return results
}
try await http.shutdown().get()

print("boxes \(boxCount), 24 hourly runs, forecast days \(days), \(ProcessInfo.processInfo.activeProcessorCount) cores, mock in-process, run-aware")
print(
    "probability | forecast requests/day | ensemble requests/day | forecast weight/day | ensemble weight/day | total weight/day | vs off | runs fetching ensembles | seconds"
)
let reference = measured[0].forecastWeight + measured[0].ensembleWeight
var failed = false
for (strategy, day) in zip(strategies, measured) {
    let total = day.forecastWeight + day.ensembleWeight
    failed = failed || day.failures > 0
    print(
        "\(strategy.name) | \(day.requests) | \(day.ensembleRequests) | \(String(format: "%.0f", day.forecastWeight)) | "
            + "\(String(format: "%.0f", day.ensembleWeight)) | \(String(format: "%.0f", total)) | \(String(format: "%.2f", total / reference))× | "
            + "\(day.ensembleFetches.filter { $0 > 0 }.count) of 24 | \(String(format: "%.0f", day.seconds))")
}
if failed {
    print("some boxes failed")
    exit(1)
}
