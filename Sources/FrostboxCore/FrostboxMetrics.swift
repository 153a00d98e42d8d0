/// The names and label keys of every metric Frostbox exports, in one place so that the
/// emitters (HTTP middleware, decorators around the ports, services) and the dashboards agree.
/// Names follow Prometheus conventions: `frostbox_` prefix, base units, `_total` on counters.
public enum FrostboxMetrics {
    /// Metric names.
    public enum Name {
        // HTTP
        /// Counter: HTTP requests answered, by `route`, `method`, `status`.
        public static let httpRequests = "frostbox_http_requests_total"
        /// Histogram (seconds): time to answer an HTTP request, by `route`, `method`, `status`.
        public static let httpRequestDuration = "frostbox_http_request_duration_seconds"
        /// Counter: requests refused by the per-client rate limit.
        public static let httpRateLimited = "frostbox_http_rate_limited_total"
        /// Gauge: clients currently tracked by the rate limiter.
        public static let httpRateLimitClients = "frostbox_http_rate_limit_clients"
        /// Counter: connections closed on opening or displaced by the connection caps, by `reason`.
        public static let httpConnectionsRefused = "frostbox_http_connections_refused_total"

        // Forecasts
        /// Counter: HTTP requests made to the forecast source.
        public static let forecastRequests = "frostbox_forecast_requests_total"
        /// Counter: quota weight charged by the forecast source.
        public static let forecastWeight = "frostbox_forecast_weight_total"
        /// Counter: boxes whose forecast failed, by `reason`.
        public static let forecastFailures = "frostbox_forecast_failures_total"
        /// Counter: boxes answered, by `source` (`cache`, `fetched`).
        public static let forecastBoxes = "frostbox_forecast_boxes_total"
        /// Gauge: quota weight left in the tightest budget window, by `window`.
        public static let forecastQuotaLeft = "frostbox_forecast_quota_left"
        /// Counter: boxes served from the cache because no model they depend on had a newer run.
        public static let forecastCurrentByRun = "frostbox_forecast_boxes_current_by_run_total"
        /// Counter: model metadata requests (never charged to the quota).
        public static let forecastRunChecks = "frostbox_forecast_run_checks_total"
        /// Counter: new model runs seen, by `model`.
        public static let forecastModelRuns = "frostbox_forecast_model_runs_total"
        /// Counter: boxes wanting a chance of frost, by `source` (`cache`, `fetched`, or
        /// `fallback`: no ensemble this run, judged by the forecast).
        public static let ensembleBoxes = "frostbox_ensemble_boxes_total"
        /// Counter: quota weight charged for ensembles (also in `frostbox_forecast_weight_total`'s run totals).
        public static let ensembleWeight = "frostbox_ensemble_weight_total"

        // Verification (issue #48)
        /// Counter: kept nights the check moved on, by `state` (`chosen`, `skipped`, `observed`, `unavailable`).
        public static let verificationNights = "frostbox_verification_nights_total"
        /// Counter: archive requests of the night check, and the quota weight they cost (within its share).
        public static let verificationRequests = "frostbox_verification_requests_total"
        public static let verificationWeight = "frostbox_verification_weight_total"

        // Alerts and push
        /// Counter: alerts planned by a notify run, by `level` (the alert class).
        public static let alertsPlanned = "frostbox_alerts_planned_total"
        /// Counter: alerts the push gateways accepted, by `level`.
        public static let alertsDelivered = "frostbox_alerts_delivered_total"
        /// Counter: alerts that failed for good, by `level` and `class` (`PushOutcome.failureClass`).
        public static let alertsFailed = "frostbox_alerts_failed_total"
        /// Counter: device tokens removed because a push gateway said they are dead.
        public static let tokensPruned = "frostbox_tokens_pruned_total"
        /// Counter: push attempts, by `outcome` (`PushOutcome.failureClass`).
        public static let pushes = "frostbox_push_total"
        /// Histogram (seconds): time from handing a push to the sender to its outcome.
        public static let pushDuration = "frostbox_push_duration_seconds"
        /// Counter: pushes sent again (retries and resends after a restart).
        public static let pushResends = "frostbox_push_resends_total"

        // Notifier
        /// Histogram (seconds): duration of a whole notify run, by `result`.
        public static let notifyRunDuration = "frostbox_notify_run_duration_seconds"
        /// Counter: notify runs, by `result` (`completed`, `degraded`: some boxes or pushes failed, `failed`: nothing could be done or the run was cut short).
        public static let notifyRuns = "frostbox_notify_runs_total"
        /// Gauge: alerts waiting in the outbox.
        public static let outboxPending = "frostbox_outbox_pending"
        /// Counter: alerts planned inside their device's quiet hours or outside their delivery window and held, by `level`.
        public static let alertsHeld = "frostbox_alerts_held_total"
        /// Counter: held alerts sent when the quiet hours ended or the window opened, by `level`.
        public static let alertsReleased = "frostbox_alerts_released_total"
        /// Counter: held alerts dropped at release because their frost had begun, by `level`.
        public static let alertsHeldExpired = "frostbox_alerts_held_expired_total"
        /// Counter: verification pushes to pending devices, by `result` (`verified`, `rejected`: removed, `waiting`: tried again next run).
        public static let deviceVerifications = "frostbox_device_verifications_total"
        /// Gauge: devices waiting to be proven real (as of the latest run).
        public static let devicesPending = "frostbox_devices_pending"
        /// Gauge: subscribed boxes left out of the latest run, by `reason` (`budget`: the forecast budget was spent; `unverified`: no device in them is verified yet).
        public static let boxesLeftOut = "frostbox_boxes_left_out"

        // Places
        /// Gauge (UTC epoch seconds): when the places generation in use was built; 0 for a plain places file.
        public static let placesGenerationCreatedAt = "frostbox_places_generation_created_at_seconds"
        /// Gauge (UTC epoch seconds): when the server switched to the places generation in use; 0 for the one it started with.
        public static let placesGenerationSwitchedAt = "frostbox_places_generation_switched_at_seconds"
        /// Gauge: places generations refused since start (damaged, half-written, another schema).
        public static let placesGenerationsRefused = "frostbox_places_generations_refused"
    }

    /// Label (dimension) keys.
    public enum Label {
        public static let route = "route"
        public static let method = "method"
        public static let status = "status"
        public static let reason = "reason"
        public static let source = "source"
        public static let level = "level"
        public static let failureClass = "class"
        public static let outcome = "outcome"
        public static let result = "result"
        public static let window = "window"
        public static let model = "model"
        public static let platform = "platform"
        public static let state = "state"
    }

    /// The route label used for requests that matched no route, so unknown paths never become
    /// label values of their own.
    public static let unmatchedRoute = "unmatched"

    /// The `# HELP` text of every metric, by name: what `/metrics` tells a reader about it.
    public static let help: [String: String] = [
        Name.httpRequests: "HTTP requests answered, by route pattern, method and status.",
        Name.httpRequestDuration: "Time to answer an HTTP request, by route pattern, method and status.",
        Name.httpRateLimited: "Requests refused by the per-client rate limit (429).",
        Name.httpRateLimitClients: "Clients currently tracked by the rate limiter.",
        Name.httpConnectionsRefused:
            "Connections closed by the connection caps: address_full and server_full on opening, displaced for a lighter client.",
        Name.forecastRequests: "HTTP requests made to the forecast source (Open-Meteo).",
        Name.forecastWeight: "Quota weight charged by the forecast source.",
        Name.forecastFailures: "Boxes whose forecast failed, by reason.",
        Name.forecastBoxes: "Boxes answered with a forecast, by source (cache or fetched).",
        Name.forecastQuotaLeft: "Quota weight left in each budget window, by window.",
        Name.forecastCurrentByRun: "Boxes served from the cache because no weather model they depend on had a newer run.",
        Name.forecastRunChecks: "Model run metadata requests (meta.json; not charged to the quota).",
        Name.forecastModelRuns: "New weather model runs seen, by model.",
        Name.ensembleBoxes: "Boxes wanting a chance of frost, by source: cache, fetched, or fallback (no ensemble: judged by the forecast).",
        Name.ensembleWeight: "Quota weight charged for ensemble forecasts.",
        Name.verificationNights: "Kept nights the check against what happened moved on, by state: chosen, skipped, observed, unavailable.",
        Name.verificationRequests: "Archive requests of the night check.",
        Name.verificationWeight: "Quota weight charged for the night check (within verification.budget_share).",
        Name.alertsPlanned: "Alerts planned by notify runs, by level.",
        Name.alertsDelivered: "Alerts the push gateways accepted, by level.",
        Name.alertsFailed: "Alerts that failed, by level and failure class.",
        Name.tokensPruned: "Device tokens removed because a push gateway said they are no longer valid.",
        Name.pushes: "Push attempts, by outcome.",
        Name.pushDuration: "Time from handing a push to the sender to its outcome.",
        Name.pushResends: "Pushes sent again (retries, resends after a restart).",
        Name.notifyRunDuration: "Duration of whole notify runs, by result.",
        Name.notifyRuns: "Notify runs, by result: completed, degraded (some boxes or pushes failed) or failed.",
        Name.outboxPending: "Alerts waiting in the outbox.",
        Name.alertsHeld: "Alerts planned inside their device's quiet hours or outside their delivery window and held in the outbox, by level.",
        Name.alertsReleased: "Held alerts sent when their device's quiet hours ended or their delivery window opened, by level.",
        Name.alertsHeldExpired: "Held alerts dropped when released because the frost had begun, by level.",
        Name.deviceVerifications: "Verification pushes to pending devices, by result: verified, rejected (removed) or waiting (tried again next run).",
        Name.devicesPending: "Devices waiting to be proven real by a verification push, as of the latest notify run.",
        Name.boxesLeftOut: "Subscribed boxes the latest notify run did not ask for, by reason: budget or unverified (no verified device).",
        Name.placesGenerationCreatedAt: "When the places generation in use was built (UTC epoch seconds; 0: a plain places file).",
        Name.placesGenerationSwitchedAt: "When the server switched to the places generation in use (UTC epoch seconds; 0: the one it started with).",
        Name.placesGenerationsRefused: "Places generations refused since start (damaged, half-written or of another schema).",
    ]
}
