// bench-model-runs: what fetching by model run saves. N boxes through the live provider
// (Open-Meteo client and meta.json client, SQLite quota ledger and forecast cache) against
// the in-process mock Open-Meteo, over 24 simulated hourly notify runs, side by side in one
// invocation: today's time-based cache (TTL 1 h) and the run-aware cache with a 3-hourly
// model (icon_d2), a 6-hourly one (icon_global), and a list of two 3-hourly models whose runs
// come out an hour apart (icon_d2,icon_eu). Each run is available 90 minutes (icon_eu: 150)
// after its initialisation and counted on 10 minutes later. Prints the requests and weight
// of every run and per day, and the ratio to the TTL.
//
//   swift build -c release --scratch-path .build-release --product bench-model-runs
//   .build-release/release/bench-model-runs [--boxes 100000] [--days 3]
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

let boxCount = option("--boxes").flatMap(Int.init) ?? 100_000
let days = option("--days").flatMap(Int.init) ?? 3
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
// Distinct boxes over central Europe, row by row.
let boxes: [GeoBox] = (0..<boxCount).map { i in GeoBox(latitudeIndex: 900 + i / 600, longitudeIndex: -200 + i % 600) }
let budgets = QuotaBudgets(perMinute: 1e12, perHour: 1e12, perDay: 1e12)
let start: Int64 = 1_774_000_000 / 21_600 * 21_600

/// The simulated wall clock: the fetcher stamps forecasts with it; it never sleeps for real.
final class SimulatedClock: ForecastClock {
    private let value = Mutex<Int64>(start)
    func now() -> Int64 { value.withLock { $0 } }
    func set(_ t: Int64) { value.withLock { $0 = t } }
    func sleep(seconds: Double) async throws {}
    func randomFraction() -> Double { 0.5 }
}

/// One way of caching: the TTL alone, or run-aware with models of a run interval.
struct Strategy {
    /// A model, its metadata domain, run interval and how long after initialisation a run is out.
    typealias Model = (name: String, domain: String, interval: Int64, delay: Int64)
    let name: String
    /// The models (`forecast.models`), in order; empty: TTL.
    let models: [Model]
}

struct Day {
    var requests: [Int] = []
    var weight: [Double] = []
    var runChecks = 0
    var failures = 0
    var seconds = 0.0
}

let mock = MockOpenMeteo(scenario: MockScenario(now: start), logger: quiet)
let http = HTTPClient(eventLoopGroupProvider: .singleton)

func simulate(_ strategy: Strategy, baseURL: String) async throws -> Day {
    mock.reset()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-model-runs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try FrostboxDatabase(path: directory.appendingPathComponent("bench.sqlite").path, logger: quiet)
    let clock = SimulatedClock()
    let settings = OpenMeteoSettings(baseURL: baseURL, forecastDays: days, requestTimeoutSeconds: 300, models: strategy.models.map(\.name))
    let client = OpenMeteoClient(httpClient: http, configuration: settings, clock: clock, logger: quiet)
    var awareness: CachedForecastProvider.RunAwareness?
    if !strategy.models.isEmpty {
        let meta = OpenMeteoMetaClient(httpClient: { http }, configuration: settings, logger: quiet)
        awareness = .init(board: ModelRunBoard(source: meta, logger: quiet), models: .models(strategy.models.map(\.name)), freshness: RunFreshness())
    }
    let provider = CachedForecastProvider(
        fetcher: client, cache: GRDBForecastCache(database: database), ledger: GRDBQuotaLedger(database: database, budgets: budgets),
        freshness: ForecastFreshness(ttlSeconds: 3_600), clock: clock, runAwareness: awareness, logger: quiet)
    var day = Day()
    let stopwatch = ContinuousClock.now
    for hour in Int64(0)..<24 {
        // Notify runs on the hour, the first as a run has just been counted on.
        let now = start + 6_000 + hour * 3_600
        clock.set(now)
        for model in strategy.models {
            let initialised = (now - model.delay - 600) / model.interval * model.interval
            mock.runs.publish(
                .init(domain: model.domain, initialisedAt: initialised, availableAt: initialised + model.delay, updateIntervalSeconds: model.interval))
        }
        let batch = await provider.forecasts(for: boxes, now: now)
        day.requests.append(batch.requestsMade)
        day.weight.append(batch.weightUsed)
        day.runChecks += batch.runChecks
        day.failures += batch.failures.count
        FileHandle.standardError.write(Data("\(strategy.name) hour \(hour): \(batch.requestsMade) requests, weight \(batch.weightUsed)\n".utf8))
    }
    day.seconds = (ContinuousClock.now - stopwatch) / .seconds(1)
    return day
}

let strategies = [
    Strategy(name: "TTL 1 h (today)", models: []),
    Strategy(name: "run-aware, icon_d2 (3-hourly)", models: [("icon_d2", "dwd_icon_d2", 10_800, 5_400)]),
    Strategy(name: "run-aware, icon_global (6-hourly)", models: [("icon_global", "dwd_icon", 21_600, 5_400)]),
    Strategy(
        name: "run-aware, icon_d2,icon_eu (3-hourly, out 1 h apart)",
        models: [("icon_d2", "dwd_icon_d2", 10_800, 5_400), ("icon_eu", "dwd_icon_eu", 10_800, 9_000)]),
]
let measured: [Day] = try await mock.withRunning { baseURL in
    var results: [Day] = []
    for strategy in strategies {
        let day = try await simulate(strategy, baseURL: baseURL)
        print(
            "\(strategy.name): requests per run \(day.requests), run checks \(day.runChecks), failures \(day.failures), \(String(format: "%.0f", day.seconds)) s"
        )
        results.append(day)
    }
    return results
}
try await http.shutdown().get()

print("\nboxes \(boxCount), 24 hourly runs, forecast days \(days), \(ProcessInfo.processInfo.activeProcessorCount) cores, mock in-process")
print("strategy | requests/day | weight/day | vs TTL | runs that fetched | meta requests/day")
let reference = measured[0].weight.reduce(0, +)
var failed = false
for (strategy, day) in zip(strategies, measured) {
    let weight = day.weight.reduce(0, +)
    let fetching = day.requests.filter { $0 > 0 }.count
    failed = failed || day.failures > 0
    print(
        "\(strategy.name) | \(day.requests.reduce(0, +)) | \(String(format: "%.0f", weight)) | \(String(format: "%.3f", weight / reference))× | "
            + "\(fetching) of 24 | \(day.runChecks)")
}
if failed { exit(1) }
