import AsyncHTTPClient
import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxForecasting
import FrostboxOpenMeteo
import FrostboxSQLite
import Logging

/// `bench-notifier check --db FILE --forecast-url URL [--boxes 100000] [--alerted-percent 5]
/// [--sample 30] [--nights 1] [--region-degrees 1]`: the night check of issue #48 on its own. A fresh database keeps
/// `nights` nights (ended four days before now) for `boxes` boxes on the generator's grid,
/// `alerted-percent` % of them alerted; regions are cells of `region-degrees` (1: about 375 on
/// the grid; 5: 15, as many as a country has first-level divisions), so the sample is `sample`
/// boxes a cell and night. One `NightChecker.check` then chooses, asks the archive
/// at `--forecast-url` (the mock Open-Meteo's `/v1/archive`) under an ample budget share, and
/// keeps what it answered. Prints the choosing and fetching time, requests, weight, and the
/// process's resident size before and after.
func checkOnly(_ arguments: Arguments) async throws {
    guard let path = arguments.string("db"), let url = arguments.string("forecast-url") else {
        throw BenchError("--db and --forecast-url are required")
    }
    let boxCount = arguments.int("boxes", 100_000)
    let alertedPercent = arguments.int("alerted-percent", 5)
    let nights = max(1, arguments.int("nights", 1))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let database = try FrostboxDatabase(path: path, logger: Logger(label: "bench"))
    let store = GRDBNotifierStore(database: database)
    var random = SplitMix64(seed: 1)
    var cells = Set<Int>()
    while cells.count < boxCount { cells.insert(random.below(300 * 500)) }
    let boxes = cells.sorted().map { Coordinate(uncheckedLatitude: 55 + Double($0 / 500) * 0.05, longitude: 5 + Double($0 % 500) * 0.05).box }
    let now = Int64(Date().timeIntervalSince1970)
    for offset in 0..<nights {
        let night = LocalDate(daysSinceEpoch: now / 86_400 - 4 - Int64(offset))
        let start = night.daysSinceEpoch * 86_400 + 16 * 3_600
        for chunk in stride(from: 0, to: boxes.count, by: 10_000) {
            let part = boxes[chunk..<min(chunk + 10_000, boxes.count)]
            try await store.keep(
                part.map {
                    KeptVerdict(
                        box: $0, night: night, windowStart: start, windowEnd: start + 57_600, utcOffsetSeconds: 3_600, level: .none, minimumC: 1,
                        judgedAt: start - 3_600)
                })
            let alerted = part.enumerated().filter { (chunk + $0.offset) % 100 < alertedPercent }.map(\.element)
            try await store.keep(alerted.map { NightAlert(box: $0, night: night, level: .freeze, sentAt: start - 3_600, lead: .sameNight) })
        }
    }
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    let logger = Logger(label: "bench")
    let forecast = OpenMeteoClient(httpClient: http, configuration: OpenMeteoSettings(baseURL: url, requestTimeoutSeconds: 120), clock: SystemForecastClock())
    let archive = OpenMeteoArchiveClient(
        client: forecast, configuration: OpenMeteoSettings(baseURL: url, requestTimeoutSeconds: 120, models: [OpenMeteoArchiveClient.defaultModel]))
    var settings = NightChecker.Settings()
    settings.samplePerStratum = arguments.int("sample", 30)
    let ledger = GRDBQuotaLedger(database: database, budgets: QuotaBudgets(perMinute: 1e9, perHour: 1e9, perDay: 1e9))
    let checker = NightChecker(
        store: store, fetcher: archive, ledger: ledger, regions: CellRegions(degrees: Double(max(1, arguments.int("region-degrees", 1)))), settings: settings,
        owner: "bench", logger: logger)
    ProcessMemory.releaseFree()
    let before = ProcessMemory.residentBytes() ?? 0
    let started = ContinuousClock.now
    let summary = try await checker.check(now: now)
    let elapsed = ContinuousClock.now - started
    let after = ProcessMemory.residentBytes() ?? 0
    try await http.shutdown()
    let counts = try await store.nightCheckCounts()
    print(
        "check: boxes=\(boxCount) nights=\(nights) region_degrees=\(arguments.int("region-degrees", 1)) alerted=\(alertedPercent)% chosen=\(summary.chosen) skipped=\(summary.skipped) "
            + "observed=\(summary.observed) requests=\(summary.requests) weight=\(summary.weight) seconds=\(elapsed.seconds) "
            + "rss_before_mb=\(before >> 20) rss_after_mb=\(after >> 20) state=\(counts)")
}

/// Regions for the benchmark: the cell of `degrees` a box lies in.
struct CellRegions: RegionLocator {
    let degrees: Double

    func regions(of boxes: [GeoBox]) async throws -> [GeoBox: VerificationRegion] {
        Dictionary(
            uniqueKeysWithValues: boxes.map { box in
                let row = Int((box.latitude / degrees).rounded(.down))
                let column = Int((box.longitude / degrees).rounded(.down))
                return (box, VerificationRegion(countryCode: "XX", admin1Code: "\(row).\(column)"))
            })
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// `bench-notifier regions --places FILE [--boxes 100000] [--repeats 3]`: the night check's
/// region lookup alone (`GRDBRegionLocator`) for that many boxes on the generator's grid,
/// in one call as the check makes it, timed each repeat.
func regionsOnly(_ arguments: Arguments) async throws {
    guard let path = arguments.string("places") else { throw BenchError("--places is required") }
    let boxCount = arguments.int("boxes", 100_000)
    var random = SplitMix64(seed: 1)
    var cells = Set<Int>()
    while cells.count < boxCount { cells.insert(random.below(300 * 500)) }
    let boxes = cells.sorted().map { Coordinate(uncheckedLatitude: 55 + Double($0 / 500) * 0.05, longitude: 5 + Double($0 % 500) * 0.05).box }
    let locator = GRDBRegionLocator(database: try PlacesDatabase(path: path))
    for _ in 0..<max(1, arguments.int("repeats", 3)) {
        let started = ContinuousClock.now
        let regions = try await locator.regions(of: boxes)
        let elapsed = ContinuousClock.now - started
        print("regions: boxes=\(boxCount) located=\(regions.count) distinct=\(Set(regions.values).count) seconds=\(elapsed.seconds)")
    }
}
