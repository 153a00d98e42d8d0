// bench-places: in-process latency of the place search (GRDBPlaceIndex) on an imported
// database, for docs/benchmarks.md.
//
//   bench-places --db FILE [--queries 10000] [--seed 7] [--urls FILE]
//
// Each query is a random prefix (1–5 characters, uniform) of a name form of a random
// place, searched near a random populated place (limit 10, radius 200 km). Prints
// p50/p90/p99/max overall and per prefix length, then apart: queries answered by nearby
// places alone (the local path) and queries completed from everywhere (fewer than 10
// nearby), then worldwide queries.
// `--urls` also writes the queries as /v1/places URLs, one per line, for wrk.

import Foundation
import FrostboxCore
import FrostboxSQLite
import GRDB

var databasePath: String?
var queryCount = 10_000
var seed: UInt64 = 7
var urlsPath: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--db": databasePath = arguments.next()
    case "--queries": queryCount = Int(arguments.next() ?? "") ?? queryCount
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--urls": urlsPath = arguments.next()
    default:
        FileHandle.standardError.write(Data("usage: bench-places --db FILE [--queries N] [--seed S] [--urls FILE]\n".utf8))
        exit(2)
    }
}
guard let databasePath else {
    FileHandle.standardError.write(Data("--db is required\n".utf8))
    exit(2)
}

let database = try PlacesDatabase(path: databasePath)
let index = GRDBPlaceIndex(database: database)

let (minID, maxID) = try database.pool.read { db in
    (try Int64.fetchOne(db, sql: "SELECT min(id) FROM place") ?? 0, try Int64.fetchOne(db, sql: "SELECT max(id) FROM place") ?? 0)
}
guard maxID > 0 else {
    print("no places in \(databasePath)")
    exit(1)
}

/// A random populated point and a random prefix of a random place's name.
func makeQueries(_ count: Int, near: Bool, seed: UInt64) throws -> [PlaceQuery] {
    try database.pool.read { db in
        var rng = SplitMix64(seed: seed)
        var queries: [PlaceQuery] = []
        while queries.count < count {
            let pointID = Int64.random(in: minID...maxID, using: &rng)
            guard
                let point = try Row.fetchOne(
                    db, sql: "SELECT latitude, longitude FROM place WHERE id >= ? AND population > 0 ORDER BY id LIMIT 1",
                    arguments: [pointID])
            else { continue }
            let nameID = Int64.random(in: minID...maxID, using: &rng)
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT name, ascii_name, alternate_names FROM place WHERE id >= ? ORDER BY id LIMIT 1", arguments: [nameID])
            else { continue }
            let forms = [row[0], row[1]] + (row[2] as String).split(separator: ",").map(String.init)
            let form: String = forms.randomElement(using: &rng) ?? row[0]
            let length = Int.random(in: 1...5, using: &rng)
            let prefix = String(form.prefix(length))
            let coordinate = try Coordinate(latitude: point[0], longitude: point[1])
            guard let query = try? PlaceQuery(text: prefix, near: near ? coordinate : nil) else { continue }
            queries.append(query)
        }
        return queries
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func report(_ label: String, _ samples: [Double]) {
    let sorted = samples.sorted()
    let mean = sorted.reduce(0, +) / Double(max(sorted.count, 1))
    print(
        String(
            format: "%@ n=%6d  p50 %7.3f ms  p90 %7.3f ms  p99 %7.3f ms  max %8.3f ms  mean %7.3f ms",
            label.padding(toLength: 28, withPad: " ", startingAt: 0) as NSString, sorted.count, percentile(sorted, 0.5), percentile(sorted, 0.9),
            percentile(sorted, 0.99),
            sorted.last ?? .nan, mean))
}

/// CPU seconds this process has used (user and system): per query, a figure that a busy
/// machine disturbs far less than the latencies.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func measure(_ queries: [PlaceQuery]) async throws -> (latencies: [Double], results: Int, completed: [Bool]) {
    let cpuStart = processCPUSeconds()
    defer {
        let perQuery = (processCPUSeconds() - cpuStart) / Double(max(queries.count, 1)) * 1e6
        print(String(format: "CPU per query (process, user + system): %.1f µs over %d queries", perQuery, queries.count))
    }
    var latencies: [Double] = []
    latencies.reserveCapacity(queries.count)
    var results = 0
    var completed: [Bool] = []
    let clock = ContinuousClock()
    for query in queries {
        let start = clock.now
        let matches = try await index.search(query)
        let elapsed = clock.now - start
        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        results += matches.count
        // Fewer than `limit` nearby: the search went on worldwide.
        completed.append(query.near != nil && matches.filter(\.isNearby).count < query.limit)
    }
    return (latencies, results, completed)
}

let places = try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0 }
print("database: \(databasePath), \(places) places")
let near = try makeQueries(queryCount, near: true, seed: seed)
let world = try makeQueries(max(queryCount / 10, 100), near: false, seed: seed &+ 1)

// Warm-up: one pass over a separate sample, so the page cache holds the upper index levels.
_ = try await measure(try makeQueries(min(queryCount, 2_000), near: true, seed: seed &+ 2))

let (nearLatencies, nearResults, nearCompleted) = try await measure(near)
report("near point, all prefixes", nearLatencies)
report("near, nearby only (local)", zip(nearLatencies, nearCompleted).filter { !$0.1 }.map(\.0))
report("near, completed worldwide", zip(nearLatencies, nearCompleted).filter { $0.1 }.map(\.0))
for length in 1...5 {
    let samples = zip(near, nearLatencies).filter { $0.0.text.count == length }.map(\.1)
    report("near point, \(length) char", samples)
}
print(String(format: "mean results per near query: %.2f", Double(nearResults) / Double(near.count)))
let (worldLatencies, worldResults, _) = try await measure(world)
report("worldwide, all prefixes", worldLatencies)
print(String(format: "mean results per worldwide query: %.2f", Double(worldResults) / Double(world.count)))

if let urlsPath {
    let lines = near.map { query in
        let q = query.text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/v1/places?q=\(q)&lat=\(query.near!.latitude)&lon=\(query.near!.longitude)&limit=10"
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: urlsPath, atomically: true, encoding: .utf8)
    print("wrote \(lines.count) URLs to \(urlsPath)")
}
