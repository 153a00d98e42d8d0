// bench-forecasts: forecasts for N boxes through the live provider (Open-Meteo client,
// SQLite quota ledger and cache) against the in-process mock Open-Meteo on a loopback port.
// For each batch size (runs interleaved, so each is measured beside the others): requests
// made against the limit ⌈boxes / batch⌉, weight used against one per box, wall time
// (median of the runs), and the cost of a second run within the TTL.
//
//   swift build -c release --scratch-path .build-release --product bench-forecasts
//   .build-release/release/bench-forecasts [--boxes 100000] [--batch 1000,100] [--runs 3]
import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxForecasting
import FrostboxOpenMeteo
import FrostboxSQLite
import Logging
import MockOpenMeteo

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

let boxCount = option("--boxes").flatMap(Int.init) ?? 100_000
let batchSizes = (option("--batch") ?? "1000").split(separator: ",").compactMap { Int($0) }
let runs = option("--runs").flatMap(Int.init) ?? 3
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

// Distinct boxes over Europe, row by row.
let boxes: [GeoBox] = (0..<boxCount).map { i in GeoBox(latitudeIndex: 900 + i / 600, longitudeIndex: -200 + i % 600) }
let budgets = QuotaBudgets(perMinute: 1e12, perHour: 1e12, perDay: 1e12)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func format(_ value: Double) -> String { String(format: "%.2f", value) }

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

func measure(batchSize: Int, baseURL: String) async throws -> RunResult {
    mock.reset()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-forecasts-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try FrostboxDatabase(path: directory.appendingPathComponent("bench.sqlite").path, logger: quiet)
    let client = OpenMeteoClient(
        httpClient: http, configuration: OpenMeteoSettings(baseURL: baseURL, batchSize: batchSize, requestTimeoutSeconds: 120),
        clock: SystemForecastClock(), logger: quiet)
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
    return RunResult(
        requests: batch.requestsMade, weight: batch.weightUsed, seconds: fetchSeconds, cachedRequests: cached.requestsMade,
        cachedSeconds: cachedSeconds, failures: batch.failures.count + cached.failures.count, mockRequests: counters.requests,
        mockLocations: counters.locations)
}

let results: [Int: [RunResult]] = try await mock.withRunning { baseURL in
    var results: [Int: [RunResult]] = [:]
    for run in 0..<runs {
        for batchSize in batchSizes {
            let result = try await measure(batchSize: batchSize, baseURL: baseURL)
            print(
                "run \(run + 1) batch \(batchSize): requests \(result.requests) (mock saw \(result.mockRequests), \(result.mockLocations) locations), "
                    + "weight \(result.weight), fetch \(format(result.seconds)) s; second run \(result.cachedRequests) requests in \(format(result.cachedSeconds)) s; failures \(result.failures)"
            )
            results[batchSize, default: []].append(result)
        }
    }
    return results
}
try await http.shutdown().get()

print("\nboxes \(boxCount), runs \(runs), \(ProcessInfo.processInfo.activeProcessorCount) cores, mock in-process (same cores)")
print(
    "batch | requests (limit ⌈boxes/batch⌉) | weight (limit boxes) | fetch median s | boxes/s | vs batch \(batchSizes[0]) | 2nd run requests | 2nd run median s"
)
var failed = false
let reference = median(results[batchSizes[0]]!.map(\.seconds))
for batchSize in batchSizes {
    let rs = results[batchSize]!
    let limit = (boxCount + batchSize - 1) / batchSize
    let requestsOK = rs.allSatisfy { $0.requests == limit && $0.mockRequests == limit }
    let weightOK = rs.allSatisfy { $0.weight == Double(boxCount) }
    failed = failed || !requestsOK || !weightOK || rs.contains { $0.failures > 0 || $0.cachedRequests > 0 }
    let fetch = median(rs.map(\.seconds))
    print(
        "\(batchSize) | \(Set(rs.map(\.requests)).sorted()) (\(limit)) \(requestsOK ? "ok" : "MISMATCH") | \(Set(rs.map(\.weight)).sorted()) (\(boxCount)) \(weightOK ? "ok" : "MISMATCH") | "
            + "\(format(fetch)) | \(Int(Double(boxCount) / fetch)) | \(format(fetch / reference))× | \(Set(rs.map(\.cachedRequests)).sorted()) | \(format(median(rs.map(\.cachedSeconds))))"
    )
}
if failed { exit(1) }
