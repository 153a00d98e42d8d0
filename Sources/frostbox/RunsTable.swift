import Foundation
import FrostboxApp
import FrostboxCore

/// What `frostbox runs` prints: the latest notify runs as an aligned table, or as JSON.
enum RunsTable {
    static let headers = [
        "ID", "STARTED (UTC)", "STATUS", "BOXES", "FRESH BY RUN", "REQUESTS", "BOX FAILURES", "LEFT OUT", "PLANNED", "DELIVERED", "PUSH FAILURES",
        "BY PLATFORM (DELIVERED/FAILED)", "DURATION", "HELD", "RELEASED", "HELD EXPIRED",
        "VERIFIED", "REJECTED", "UNVERIFIED BOXES",
    ]

    /// One header line and one line per run, columns aligned; a run's error follows its line.
    /// With `workers` (shared runs), each run's workers follow it, one line each.
    static func text(_ runs: [NotifyRunSummary], workers: [Int64: [NotifyRunWorker]]? = nil) -> String {
        let rows = runs.map { run -> [String] in
            [
                "\(run.id)", timestamp(run.startedAt), run.status.rawValue + (run.dryRun ? " (dry run)" : ""), "\(run.boxes)",
                "\(run.forecastsFreshByRun)", "\(run.forecastRequests)", "\(run.boxesFailed)", "\(run.boxesLeftOut)", "\(run.alertsPlanned)",
                "\(run.alertsDelivered)", "\(run.alertsFailed)", run.byPlatform.isEmpty ? "-" : run.byPlatform.description,
                run.finishedAt == nil ? "-" : seconds(run.durationMilliseconds),
                "\(run.alertsHeld)", "\(run.alertsReleased)", "\(run.alertsHeldExpired)",
                "\(run.devicesVerified)", "\(run.devicesRejected)", "\(run.boxesUnverified)",
            ]
        }
        let table = TextTable.lines(headers, rows)
        var lines = [table[0]]
        for (run, line) in zip(runs, table.dropFirst()) {
            lines.append(line)
            if let error = run.error { lines.append("    error: \(error)") }
            for worker in workers?[run.id] ?? [] {
                let state =
                    worker.finishedAt.map { "finished \(timestamp($0))" }
                    ?? "no part stored (last heartbeat \(timestamp(worker.heartbeatAt)))"
                lines.append(
                    "    worker \(worker.worker): boxes \(worker.boxes), planned \(worker.alertsPlanned), delivered \(worker.alertsDelivered), "
                        + "taken over \(worker.alertsCarriedOver); \(state)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A JSON array, newest first, with snake_case keys and sorted keys.
    static func json(_ runs: [NotifyRunSummary], workers: [Int64: [NotifyRunWorker]]? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let rows = runs.map { run in
            var row = Row(run)
            row.workers = workers.map { $0[run.id] ?? [] }
            return row
        }
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    static func timestamp(_ epoch: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(epoch)).formatted(.iso8601)
    }

    static func seconds(_ milliseconds: Int) -> String {
        String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    /// One run in `--json`.
    struct Row: Encodable {
        let id: Int64
        let status: String
        let dryRun: Bool
        let startedAt: Int64
        let finishedAt: Int64?
        let boxes, forecastsCached, forecastsFreshByRun, forecastsFetched, boxesFailed, boxesLeftOut, forecastRequests: Int
        let weightUsed: Double
        let verdicts, alertsPlanned, alertsCarriedOver, alertsDelivered, tokensPruned, durationMs: Int
        let alertsFailed: [String: Int]
        /// Delivered and failed alerts by platform, platforms with any only.
        let byPlatform: [String: PlatformDeliveries.Counts]
        let error: String?
        /// Shared runs only: who worked on it.
        var workers: [NotifyRunWorker]?
        /// Quiet hours: alerts held, held alerts released, held alerts dropped because their frost had begun.
        let alertsHeld, alertsReleased, alertsHeldExpired: Int
        /// Device verification: devices proven real, devices refused (removed), boxes left out with no verified device.
        let devicesVerified, devicesRejected, boxesUnverified: Int
        /// Chance of frost: ensembles from the cache, fetched, and boxes judged by the forecast for want of one.
        let ensemblesCached, ensemblesFetched, probabilityFallback: Int

        init(_ run: NotifyRunSummary) {
            id = run.id
            status = run.status.rawValue
            dryRun = run.dryRun
            startedAt = run.startedAt
            finishedAt = run.finishedAt
            boxes = run.boxes
            forecastsCached = run.forecastsCached
            forecastsFreshByRun = run.forecastsFreshByRun
            forecastsFetched = run.forecastsFetched
            boxesFailed = run.boxesFailed
            boxesLeftOut = run.boxesLeftOut
            forecastRequests = run.forecastRequests
            weightUsed = run.weightUsed
            verdicts = run.verdicts
            alertsPlanned = run.alertsPlanned
            alertsCarriedOver = run.alertsCarriedOver
            alertsDelivered = run.alertsDelivered
            tokensPruned = run.tokensPruned
            durationMs = run.durationMilliseconds
            alertsFailed = Dictionary(uniqueKeysWithValues: DeliveryFailureClass.allCases.map { ($0.rawValue, run.failed[$0] ?? 0) })
            byPlatform = Dictionary(uniqueKeysWithValues: run.byPlatform.counts.map { ($0.key.rawValue, $0.value) })
            error = run.error
            alertsHeld = run.alertsHeld
            alertsReleased = run.alertsReleased
            alertsHeldExpired = run.alertsHeldExpired
            devicesVerified = run.devicesVerified
            devicesRejected = run.devicesRejected
            boxesUnverified = run.boxesUnverified
            ensemblesCached = run.ensemblesCached
            ensemblesFetched = run.ensemblesFetched
            probabilityFallback = run.probabilityFallback
        }

        enum CodingKeys: String, CodingKey {
            case id, status, boxes, verdicts, error
            case dryRun = "dry_run"
            case startedAt = "started_at"
            case finishedAt = "finished_at"
            case forecastsCached = "forecasts_cached"
            case forecastsFreshByRun = "forecasts_fresh_by_run"
            case forecastsFetched = "forecasts_fetched"
            case boxesFailed = "boxes_failed"
            case boxesLeftOut = "boxes_left_out"
            case forecastRequests = "forecast_requests"
            case weightUsed = "weight_used"
            case alertsPlanned = "alerts_planned"
            case alertsCarriedOver = "alerts_carried_over"
            case alertsDelivered = "alerts_delivered"
            case alertsFailed = "alerts_failed"
            case byPlatform = "by_platform"
            case workers
            case tokensPruned = "tokens_pruned"
            case durationMs = "duration_ms"
            case alertsHeld = "alerts_held"
            case alertsReleased = "alerts_released"
            case alertsHeldExpired = "alerts_held_expired"
            case devicesVerified = "devices_verified"
            case devicesRejected = "devices_rejected"
            case boxesUnverified = "boxes_unverified"
            case ensemblesCached = "ensembles_cached"
            case ensemblesFetched = "ensembles_fetched"
            case probabilityFallback = "probability_fallback"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(status, forKey: .status)
            try c.encode(dryRun, forKey: .dryRun)
            try c.encode(startedAt, forKey: .startedAt)
            try c.encode(finishedAt, forKey: .finishedAt)
            try c.encode(boxes, forKey: .boxes)
            try c.encode(forecastsCached, forKey: .forecastsCached)
            try c.encode(forecastsFreshByRun, forKey: .forecastsFreshByRun)
            try c.encode(forecastsFetched, forKey: .forecastsFetched)
            try c.encode(boxesFailed, forKey: .boxesFailed)
            try c.encode(boxesLeftOut, forKey: .boxesLeftOut)
            try c.encode(forecastRequests, forKey: .forecastRequests)
            try c.encode(weightUsed, forKey: .weightUsed)
            try c.encode(verdicts, forKey: .verdicts)
            try c.encode(alertsPlanned, forKey: .alertsPlanned)
            try c.encode(alertsCarriedOver, forKey: .alertsCarriedOver)
            try c.encode(alertsDelivered, forKey: .alertsDelivered)
            try c.encode(alertsFailed, forKey: .alertsFailed)
            try c.encode(byPlatform, forKey: .byPlatform)
            try c.encode(tokensPruned, forKey: .tokensPruned)
            try c.encode(durationMs, forKey: .durationMs)
            try c.encode(error, forKey: .error)
            if let workers { try c.encode(workers, forKey: .workers) }
            try c.encode(alertsHeld, forKey: .alertsHeld)
            try c.encode(alertsReleased, forKey: .alertsReleased)
            try c.encode(alertsHeldExpired, forKey: .alertsHeldExpired)
            try c.encode(devicesVerified, forKey: .devicesVerified)
            try c.encode(devicesRejected, forKey: .devicesRejected)
            try c.encode(boxesUnverified, forKey: .boxesUnverified)
            try c.encode(ensemblesCached, forKey: .ensemblesCached)
            try c.encode(ensemblesFetched, forKey: .ensemblesFetched)
            try c.encode(probabilityFallback, forKey: .probabilityFallback)
        }
    }
}
