import FrostboxCore

/// How both database adapters store a run summary: every column of `notify_run` but `id`,
/// in order, each with how its value comes from and goes back into `NotifyRunSummary`. The
/// one map of the summary's fields to columns; the adapters only bind and read the values.
public enum NotifyRunColumns {
    /// A stored value, by the column's type.
    public enum Value: Sendable, Hashable {
        /// A count (INTEGER: 32 bits on PostgreSQL, clamped).
        case count(Int)
        /// An instant or a duration (BIGINT); nil only where the column allows NULL.
        case integer(Int64?)
        /// DOUBLE PRECISION / REAL.
        case real(Double)
        /// TEXT; nil only where the column allows NULL.
        case text(String?)
    }

    /// The column's type, which says how an adapter reads it.
    public enum Kind: Sendable {
        case count, integer, optionalInteger, real, text, optionalText
    }

    /// One column: its name, its type, and its field of the summary.
    public struct Column: Sendable {
        public let name: String
        public let kind: Kind
        let get: @Sendable (NotifyRunSummary) -> Value
        let set: @Sendable (inout NotifyRunSummary, Value) -> Void
    }

    /// Every column but `id`, in storage order.
    public static let columns: [Column] = [
        Column(name: "started_at", kind: .integer, get: { .integer($0.startedAt) }, set: { $0.startedAt = $1.integer ?? 0 }),
        Column(name: "finished_at", kind: .optionalInteger, get: { .integer($0.finishedAt) }, set: { $0.finishedAt = $1.integer }),
        Column(
            name: "status", kind: .text, get: { .text($0.status.rawValue) },
            // A status this version does not know reads as failed rather than as running.
            set: { $0.status = $1.text.flatMap(NotifyRunSummary.Status.init(rawValue:)) ?? .failed }),
        count("boxes", \.boxes), count("forecasts_cached", \.forecastsCached), count("forecasts_fetched", \.forecastsFetched),
        count("boxes_failed", \.boxesFailed), count("boxes_left_out", \.boxesLeftOut), count("forecast_requests", \.forecastRequests),
        Column(name: "weight_used", kind: .real, get: { .real($0.weightUsed) }, set: { $0.weightUsed = $1.real }),
        count("verdicts", \.verdicts), count("alerts_planned", \.alertsPlanned), count("alerts_carried_over", \.alertsCarriedOver),
        count("alerts_delivered", \.alertsDelivered),
        failed("failed_temporary", .temporary), failed("failed_permanent", .permanent), failed("failed_invalid_token", .invalidToken),
        failed("failed_auth", .auth), failed("failed_expired", .expired),
        count("tokens_pruned", \.tokensPruned),
        milliseconds("resend_ms", \.resendMilliseconds), milliseconds("forecast_ms", \.forecastMilliseconds),
        milliseconds("planning_ms", \.planningMilliseconds), milliseconds("store_ms", \.storeMilliseconds),
        milliseconds("delivery_ms", \.deliveryMilliseconds), milliseconds("duration_ms", \.durationMilliseconds),
        Column(name: "error", kind: .optionalText, get: { .text($0.error) }, set: { $0.error = $1.text }),
        count("forecasts_fresh_by_run", \.forecastsFreshByRun),
        Column(
            name: "by_platform", kind: .text, get: { .text(PlatformDeliveriesCodec.encode($0.byPlatform)) },
            set: { $0.byPlatform = PlatformDeliveriesCodec.decode($1.text ?? "") }),
        count("alerts_held", \.alertsHeld), count("alerts_released", \.alertsReleased), count("alerts_held_expired", \.alertsHeldExpired),
        count("devices_verified", \.devicesVerified), count("devices_rejected", \.devicesRejected), count("boxes_unverified", \.boxesUnverified),
        count("ensembles_cached", \.ensemblesCached), count("ensembles_fetched", \.ensemblesFetched),
        count("probability_fallback", \.probabilityFallback),
    ]

    /// The column names, in storage order.
    public static let names = columns.map(\.name)

    /// The summary's values, in the order of `columns`.
    public static func values(_ summary: NotifyRunSummary) -> [Value] {
        columns.map { $0.get(summary) }
    }

    /// The summary stored under `id`, its columns read by `read`.
    public static func summary(id: Int64, read: (Column) throws -> Value) rethrows -> NotifyRunSummary {
        var summary = NotifyRunSummary(id: id, startedAt: 0)
        for column in columns { column.set(&summary, try read(column)) }
        return summary
    }

    static func count(_ name: String, _ field: WritableKeyPath<NotifyRunSummary, Int> & Sendable) -> Column {
        Column(name: name, kind: .count, get: { .count($0[keyPath: field]) }, set: { $0[keyPath: field] = $1.count })
    }

    static func milliseconds(_ name: String, _ field: WritableKeyPath<NotifyRunSummary, Int> & Sendable) -> Column {
        Column(name: name, kind: .integer, get: { .integer(Int64($0[keyPath: field])) }, set: { $0[keyPath: field] = Int($1.integer ?? 0) })
    }

    /// Failed sends of one class; a class with none is not kept in the summary's dictionary.
    static func failed(_ name: String, _ failure: DeliveryFailureClass) -> Column {
        Column(
            name: name, kind: .count, get: { .count($0.failed[failure] ?? 0) },
            set: { $0.failed[failure] = $1.count > 0 ? $1.count : nil })
    }
}

extension NotifyRunColumns.Value {
    // Each column is read back as the kind it was written (`Column.kind`); another kind
    // reads as empty.
    var count: Int { if case .count(let value) = self { value } else { 0 } }
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    var real: Double { if case .real(let value) = self { value } else { 0 } }
    var text: String? { if case .text(let value) = self { value } else { nil } }
}
