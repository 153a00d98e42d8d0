import FrostboxCore
import GRDB

/// Row of the `notify_run` table: one notify run's summary.
struct NotifyRunRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "notify_run"

    var id: Int64?
    var startedAt: Int64
    var finishedAt: Int64?
    var status: String
    var boxes: Int
    var forecastsCached: Int
    var forecastsFetched: Int
    var boxesFailed: Int
    var boxesLeftOut: Int
    var forecastRequests: Int
    var weightUsed: Double
    var verdicts: Int
    var alertsPlanned: Int
    var alertsCarriedOver: Int
    var alertsDelivered: Int
    var failedTemporary: Int
    var failedPermanent: Int
    var failedInvalidToken: Int
    var failedAuth: Int
    var failedExpired: Int
    var tokensPruned: Int
    var resendMs: Int
    var forecastMs: Int
    var planningMs: Int
    var storeMs: Int
    var deliveryMs: Int
    var durationMs: Int
    var error: String?

    enum CodingKeys: String, CodingKey {
        case id, status, boxes, verdicts, error
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case forecastsCached = "forecasts_cached"
        case forecastsFetched = "forecasts_fetched"
        case boxesFailed = "boxes_failed"
        case boxesLeftOut = "boxes_left_out"
        case forecastRequests = "forecast_requests"
        case weightUsed = "weight_used"
        case alertsPlanned = "alerts_planned"
        case alertsCarriedOver = "alerts_carried_over"
        case alertsDelivered = "alerts_delivered"
        case failedTemporary = "failed_temporary"
        case failedPermanent = "failed_permanent"
        case failedInvalidToken = "failed_invalid_token"
        case failedAuth = "failed_auth"
        case failedExpired = "failed_expired"
        case tokensPruned = "tokens_pruned"
        case resendMs = "resend_ms"
        case forecastMs = "forecast_ms"
        case planningMs = "planning_ms"
        case storeMs = "store_ms"
        case deliveryMs = "delivery_ms"
        case durationMs = "duration_ms"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
    }

    init(_ s: NotifyRunSummary) {
        id = s.id == 0 ? nil : s.id
        startedAt = s.startedAt
        finishedAt = s.finishedAt
        status = s.status.rawValue
        boxes = s.boxes
        forecastsCached = s.forecastsCached
        forecastsFetched = s.forecastsFetched
        boxesFailed = s.boxesFailed
        boxesLeftOut = s.boxesLeftOut
        forecastRequests = s.forecastRequests
        weightUsed = s.weightUsed
        verdicts = s.verdicts
        alertsPlanned = s.alertsPlanned
        alertsCarriedOver = s.alertsCarriedOver
        alertsDelivered = s.alertsDelivered
        failedTemporary = s.failed[.temporary] ?? 0
        failedPermanent = s.failed[.permanent] ?? 0
        failedInvalidToken = s.failed[.invalidToken] ?? 0
        failedAuth = s.failed[.auth] ?? 0
        failedExpired = s.failed[.expired] ?? 0
        tokensPruned = s.tokensPruned
        resendMs = s.resendMilliseconds
        forecastMs = s.forecastMilliseconds
        planningMs = s.planningMilliseconds
        storeMs = s.storeMilliseconds
        deliveryMs = s.deliveryMilliseconds
        durationMs = s.durationMilliseconds
        error = s.error
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var summary: NotifyRunSummary {
        var s = NotifyRunSummary(id: id ?? 0, startedAt: startedAt)
        s.finishedAt = finishedAt
        s.status = NotifyRunSummary.Status(rawValue: status) ?? .failed
        s.boxes = boxes
        s.forecastsCached = forecastsCached
        s.forecastsFetched = forecastsFetched
        s.boxesFailed = boxesFailed
        s.boxesLeftOut = boxesLeftOut
        s.forecastRequests = forecastRequests
        s.weightUsed = weightUsed
        s.verdicts = verdicts
        s.alertsPlanned = alertsPlanned
        s.alertsCarriedOver = alertsCarriedOver
        s.alertsDelivered = alertsDelivered
        let failed: [DeliveryFailureClass: Int] = [
            .temporary: failedTemporary, .permanent: failedPermanent, .invalidToken: failedInvalidToken,
            .auth: failedAuth, .expired: failedExpired,
        ]
        s.failed = failed.filter { $0.value > 0 }
        s.tokensPruned = tokensPruned
        s.resendMilliseconds = resendMs
        s.forecastMilliseconds = forecastMs
        s.planningMilliseconds = planningMs
        s.storeMilliseconds = storeMs
        s.deliveryMilliseconds = deliveryMs
        s.durationMilliseconds = durationMs
        s.error = error
        return s
    }
}
