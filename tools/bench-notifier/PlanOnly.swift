import Foundation
import FrostboxCore
import FrostboxSQLite

/// `bench-notifier plan --db FILE --now EPOCH [--repeats 3]`: the planning of a run alone, on
/// the forecasts and ensembles a run left in the database's caches (run one with --prefetch
/// and --probability spread|members first), with and without the chance of frost, in one
/// process: each chunk of 1,000 boxes is planned both ways, `repeats` times, the order
/// alternating, so that the machine's noise falls on both alike. Planning is what a run does
/// between reading a chunk and writing its outbox: `AlertPlanner.plan` per box (nothing
/// alerted before) and each alert's notification. No delivery runs beside it, unlike in a
/// run, where the previous chunk's delivery shares the cores with planning. Timed in the
/// thread's CPU time (the timed loop never suspends, so it stays on one thread): other
/// processes on the machine do not count, only what planning itself costs.
func planOnly(_ arguments: Arguments) async throws {
    guard let path = arguments.string("db"), let now = arguments.string("now").flatMap(Int64.init) else {
        throw BenchError("--db and --now are required")
    }
    let repeats = max(1, arguments.int("repeats", 3))
    let database = try FrostboxDatabase(path: path)
    let store = GRDBNotifierStore(database: database)
    let forecastCache = GRDBForecastCache(database: database)
    let ensembleCache = GRDBEnsembleCache(database: database)
    let planner = AlertPlanner()
    let boxes = try await store.boxesToNotify()
    var seconds: [Bool: Double] = [false: 0, true: 0]
    var alerts: [Bool: Int] = [false: 0, true: 0]
    var withEnsemble = 0
    for start in stride(from: 0, to: boxes.count, by: 1_000) {
        let chunk = Array(boxes[start..<min(start + 1_000, boxes.count)])
        let places = try await store.places(in: chunk)
        let forecasts = try await forecastCache.forecasts(for: chunk, fetchedSince: Int64.min)
        let ensembles = try await ensembleCache.ensembles(for: chunk, fetchedSince: Int64.min)
        withEnsemble += ensembles.count
        for pass in 0..<repeats {
            for chance in pass % 2 == 0 ? [false, true] : [true, false] {
                let started = threadCPUSeconds()
                var planned = 0
                var bytes = 0
                for box in chunk {
                    guard let forecast = forecasts[box], let boxPlaces = places[box] else { continue }
                    let plan = planner.plan(forecast: forecast, ensemble: chance ? ensembles[box] : nil, places: boxPlaces, alerted: [], now: now)
                    for alert in plan.alerts { bytes &+= alert.notification().content.body?.utf8.count ?? 0 }
                    planned += plan.alerts.count
                }
                seconds[chance, default: 0] += threadCPUSeconds() - started
                if pass == 0 { alerts[chance, default: 0] += planned }
                if bytes == -1 { print("") }  // keeps the bodies from being optimised away
            }
        }
    }
    let off = seconds[false]! / Double(repeats)
    let on = seconds[true]! / Double(repeats)
    print("boxes \(boxes.count), with an ensemble \(withEnsemble), passes \(repeats), timed in thread CPU time")
    print(
        String(
            format: "without the chance of frost: %.2f s a pass, %d alerts (%.2f µs an alert)", off, alerts[false]!, off * 1e6 / Double(max(1, alerts[false]!)))
    )
    print(
        String(format: "with the chance of frost:    %.2f s a pass, %d alerts (%.2f µs an alert)", on, alerts[true]!, on * 1e6 / Double(max(1, alerts[true]!))))
    print(String(format: "ratio %.3f", on / max(off, 1e-9)))
}

/// The calling thread's CPU time, seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
