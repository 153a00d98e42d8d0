import FrostboxCore
import PostgresNIO

/// The `notify_run` table's columns and the run summary they hold.
enum PostgresNotifyRuns {
    /// Every column but `id`, in the order of `values(_:)`.
    static let columns = [
        "started_at", "finished_at", "status", "boxes", "forecasts_cached", "forecasts_fetched", "boxes_failed",
        "boxes_left_out", "forecast_requests", "weight_used", "verdicts", "alerts_planned", "alerts_carried_over",
        "alerts_delivered", "failed_temporary", "failed_permanent", "failed_invalid_token", "failed_auth", "failed_expired",
        "tokens_pruned", "resend_ms", "forecast_ms", "planning_ms", "store_ms", "delivery_ms", "duration_ms", "error",
    ]

    /// The summary's values as bindings, in the order of `columns`.
    static func bindings(_ s: NotifyRunSummary) -> PostgresBindings {
        var b = PostgresBindings(capacity: columns.count + 1)
        b.append(s.startedAt)
        b.append(s.finishedAt)
        b.append(s.status.rawValue)
        for count in [
            s.boxes, s.forecastsCached, s.forecastsFetched, s.boxesFailed, s.boxesLeftOut, s.forecastRequests,
        ] {
            b.append(Int32(clamping: count))
        }
        b.append(s.weightUsed)
        for count in [
            s.verdicts, s.alertsPlanned, s.alertsCarriedOver, s.alertsDelivered, s.failed[.temporary] ?? 0,
            s.failed[.permanent] ?? 0, s.failed[.invalidToken] ?? 0, s.failed[.auth] ?? 0, s.failed[.expired] ?? 0,
            s.tokensPruned,
        ] {
            b.append(Int32(clamping: count))
        }
        for milliseconds in [
            s.resendMilliseconds, s.forecastMilliseconds, s.planningMilliseconds, s.storeMilliseconds,
            s.deliveryMilliseconds, s.durationMilliseconds,
        ] {
            b.append(Int64(milliseconds))
        }
        b.append(s.error)
        return b
    }

    static func insert(_ s: NotifyRunSummary) -> PostgresQuery {
        let placeholders = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL: "INSERT INTO notify_run (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) RETURNING id",
            binds: bindings(s))
    }

    static func update(_ s: NotifyRunSummary) -> PostgresQuery {
        var binds = bindings(s)
        binds.append(s.id)
        let assignments = columns.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: "UPDATE notify_run SET \(assignments) WHERE id = $\(columns.count + 1)", binds: binds)
    }

    static let select = "SELECT id, " + columns.joined(separator: ", ") + " FROM notify_run"

    static func summary(_ row: PostgresRow) throws -> NotifyRunSummary {
        let r = row.makeRandomAccess()
        func int(_ column: String) throws -> Int { Int(try r[column].decode(Int64.self)) }
        var s = NotifyRunSummary(id: try r["id"].decode(Int64.self), startedAt: try r["started_at"].decode(Int64.self))
        s.finishedAt = try r["finished_at"].decode(Int64?.self)
        s.status = NotifyRunSummary.Status(rawValue: try r["status"].decode(String.self)) ?? .failed
        s.boxes = try int("boxes")
        s.forecastsCached = try int("forecasts_cached")
        s.forecastsFetched = try int("forecasts_fetched")
        s.boxesFailed = try int("boxes_failed")
        s.boxesLeftOut = try int("boxes_left_out")
        s.forecastRequests = try int("forecast_requests")
        s.weightUsed = try r["weight_used"].decode(Double.self)
        s.verdicts = try int("verdicts")
        s.alertsPlanned = try int("alerts_planned")
        s.alertsCarriedOver = try int("alerts_carried_over")
        s.alertsDelivered = try int("alerts_delivered")
        let failed: [DeliveryFailureClass: Int] = [
            .temporary: try int("failed_temporary"), .permanent: try int("failed_permanent"),
            .invalidToken: try int("failed_invalid_token"), .auth: try int("failed_auth"), .expired: try int("failed_expired"),
        ]
        s.failed = failed.filter { $0.value > 0 }
        s.tokensPruned = try int("tokens_pruned")
        s.resendMilliseconds = try int("resend_ms")
        s.forecastMilliseconds = try int("forecast_ms")
        s.planningMilliseconds = try int("planning_ms")
        s.storeMilliseconds = try int("store_ms")
        s.deliveryMilliseconds = try int("delivery_ms")
        s.durationMilliseconds = try int("duration_ms")
        s.error = try r["error"].decode(String?.self)
        return s
    }
}
