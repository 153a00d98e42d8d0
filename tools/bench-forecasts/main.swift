// bench-forecasts: forecasts for N boxes through the live provider (Open-Meteo client,
// SQLite quota ledger and cache) against the in-process mock Open-Meteo on a loopback port.
// Prints requests made against ⌈boxes / batch⌉, weight used against one per box, and wall
// times (median of the runs), then the cost of a second run within the TTL.
//
//   swift build -c release --scratch-path .build-release --product bench-forecasts
//   .build-release/release/bench-forecasts [--boxes 100000] [--batch 1000] [--runs 3]
import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxOpenMeteo
import FrostboxSQLite
import Logging
import MockOpenMeteo

func option(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1]) else { return fallback }
    return value
}

let boxCount = option("--boxes", 100_000)
let batchSize = option("--batch", 1_000)
let runs = option("--runs", 3)
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

// Distinct boxes over Europe, row by row.
let boxes: [GeoBox] = (0..<boxCount).map { i in GeoBox(latitudeIndex: 900 + i / 600, longitudeIndex: -200 + i % 600) }
let budgets = QuotaBudgets(perMinute: 1e12, perHour: 1e12, perDay: 1e12)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

struct RunResult {
    var requests: Int
    var weight: Double
    var seconds: Double
    var cachedRequests: Int
    var cachedSeconds: Double
    var failures: Int
    var mockRequests: Int
    var mockLocations: Int
}

let mock = MockOpenMeteo(scenario: MockScenario(), logger: quiet)
let http = HTTPClient(eventLoopGroupProvider: .singleton)
let results: [RunResult] = try await mock.withRunning { baseURL in
    var results: [RunResult] = []
    for _ in 0..<runs {
        mock.reset()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-forecasts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try FrostboxDatabase(path: directory.appendingPathComponent("bench.sqlite").path, logger: quiet)
        let client = OpenMeteoClient(
            httpClient: http, configuration: OpenMeteoConfiguration(baseURL: baseURL, batchSize: batchSize, requestTimeoutSeconds: 120),
            logger: quiet)
        let provider = CachedForecastProvider(
            fetcher: client, cache: GRDBForecastCache(database: database), ledger: GRDBQuotaLedger(database: database, budgets: budgets),
            logger: quiet)
        let clock = ContinuousClock()
        let now = Int64(Date().timeIntervalSince1970)
        let start = clock.now
        let batch = await provider.forecasts(for: boxes, now: now)
        let fetchSeconds = (clock.now - start) / .seconds(1)
        let cachedStart = clock.now
        let cached = await provider.forecasts(for: boxes, now: now + 60)
        let cachedSeconds = (clock.now - cachedStart) / .seconds(1)
        let counters = mock.counters
        results.append(
            RunResult(
                requests: batch.requestsMade, weight: batch.weightUsed, seconds: fetchSeconds, cachedRequests: cached.requestsMade,
                cachedSeconds: cachedSeconds, failures: batch.failures.count + cached.failures.count, mockRequests: counters.requests,
                mockLocations: counters.locations))
    }
    return results
}
try await http.shutdown()

let expectedRequests = (boxCount + batchSize - 1) / batchSize
print("boxes \(boxCount), batch \(batchSize), runs \(runs), \(ProcessInfo.processInfo.activeProcessorCount) cores")
for (i, r) in results.enumerated() {
    print(
        "run \(i + 1): requests \(r.requests) (mock saw \(r.mockRequests), \(r.mockLocations) locations), weight \(r.weight), "
            + "fetch \(String(format: "%.2f", r.seconds)) s, second run: \(r.cachedRequests) requests in \(String(format: "%.2f", r.cachedSeconds)) s, failures \(r.failures)")
}
let requests = results.map(\.requests)
let weights = results.map(\.weight)
print("requests: \(requests) — must be ⌈boxes / batch⌉ = \(expectedRequests): \(requests.allSatisfy { $0 == expectedRequests } ? "ok" : "MISMATCH")")
print("weight: \(weights) — must be one per box = \(boxCount): \(weights.allSatisfy { $0 == Double(boxCount) } ? "ok" : "MISMATCH")")
let fetchMedian = median(results.map(\.seconds))
print("fetch wall time median \(String(format: "%.2f", fetchMedian)) s (\(String(format: "%.0f", Double(boxCount) / fetchMedian)) boxes/s)")
print("second run within TTL: requests \(results.map(\.cachedRequests)), median \(String(format: "%.2f", median(results.map(\.cachedSeconds)))) s")
if results.contains(where: { $0.failures > 0 || $0.requests != expectedRequests || $0.weight != Double(boxCount) }) { exit(1) }
