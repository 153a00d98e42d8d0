import FrostboxCore
import FrostboxHTTP
import FrostboxSQLite
import Hummingbird
import Logging
import Metrics

/// The operational parts of a Frostbox: metrics, the periodic report, the rate limiter and
/// admin access. Created once per process (or per test) with the other components.
public struct OperationsComponents: Sendable {
    /// Metrics registry and factory.
    public let telemetry: FrostboxTelemetry
    /// Totals for the periodic report line.
    public let report: OperationsReport
    /// The per-client token buckets of the API.
    public let rateLimiter: RateLimiter
    /// Nil: the admin API is off.
    public let adminToken: AdminToken?
    /// Nil: `/metrics` is open.
    public let metricsToken: AdminToken?
    /// Deadline on answering a request.
    public let requestTimeout: Duration?
    /// How often the report is logged.
    public let reportInterval: Duration

    public init(config: FrostboxSettings, telemetry: FrostboxTelemetry = FrostboxTelemetry()) {
        self.telemetry = telemetry
        report = OperationsReport()
        rateLimiter = RateLimiter(settings: config.rateLimit)
        adminToken = config.adminToken
        metricsToken = config.metricsToken
        requestTimeout = config.requestTimeout > .zero ? config.requestTimeout : nil
        reportInterval = config.reportInterval
    }

    /// `push` measured (outcomes, latency, streams in flight, resends, report totals).
    public func metered(_ push: any PushSender, transport: PushTransportGauges? = nil) -> MeteredPushSender {
        MeteredPushSender(push, report: report, metrics: telemetry.factory, transport: transport)
    }

    /// `provider` measured (requests, weight, failures, boxes by source), with the quota left
    /// read from `ledger` after each batch.
    public func metered(_ provider: any ForecastProvider, ledger: any QuotaLedger) -> MeteredForecastProvider {
        MeteredForecastProvider(provider, metrics: telemetry.factory) { now in try? await ledger.usage(at: now) }
    }
}

extension FrostboxApplication {
    /// Middleware of every route: request metrics outermost (so refusals are counted too),
    /// then the per-client rate limit.
    static func operationsMiddlewares(_ operations: OperationsComponents) -> @Sendable (Router<FrostboxRequestContext>, RouteRegistry) -> Void {
        { router, registry in
            router.add(middleware: RequestMetricsMiddleware(routes: registry, metrics: operations.telemetry.factory))
            if operations.rateLimiter.settings.isEnabled {
                router.add(middleware: RateLimitMiddleware(limiter: operations.rateLimiter, metrics: operations.telemetry.factory))
            }
        }
    }

    /// `/metrics`, `/openapi.yaml`, and `/admin/…` when an admin token is configured.
    static func operationsRoutes(_ operations: OperationsComponents, admin: AdminRoutes.Operations) -> [FrostboxAPI.RouteGroup] {
        let telemetry = operations.telemetry
        var groups: [FrostboxAPI.RouteGroup] = [
            OperationsRoutes(renderMetrics: { telemetry.render() }, metricsToken: operations.metricsToken).add(to:)
        ]
        if let token = operations.adminToken {
            groups.append(AdminRoutes(token: token, operations: admin).add(to:))
        }
        return groups
    }

    /// Counts and the latest runs for `GET /admin/stats`.
    static func adminStats(
        database: DeviceDatabase, places: PlacesInUse, runs: @escaping @Sendable () async throws -> [NotifyRunSummary] = { [] },
        workQueue: (any NotifyWorkQueue)? = nil, verification: (any DeviceVerificationStore)? = nil
    ) -> @Sendable () async throws -> AdminStats {
        {
            var counts = try await database.statistics()
            counts.places = try await places.database.placeCount()
            let generation = places.status
            let summaries = try await runs()
            let workers = try await workQueue?.workers(ofRuns: summaries.map(\.id))
            let recent = summaries.map { run in
                AdminRunSummary(
                    id: run.id, status: run.status.rawValue, startedAt: run.startedAt, finishedAt: run.finishedAt, boxes: run.boxes,
                    boxesFailed: run.boxesFailed, planned: run.alertsPlanned, delivered: run.alertsDelivered, failed: run.failed.values.reduce(0, +),
                    freshByRun: run.forecastsFreshByRun, forecastRequests: run.forecastRequests, workers: workers.map { $0[run.id] ?? [] })
            }
            var stats = AdminStats(
                devices: counts.devices, devicesByPlatform: counts.devicesByPlatform, subscriptions: counts.subscriptions, boxes: counts.boxes,
                places: counts.places, placesGeneration: generation.generation, placesSwitchedAt: generation.switchedAt,
                outboxPending: counts.outboxPending, forecastsCached: counts.forecastsCached, recentRuns: recent)
            stats.outboxHeld = counts.outboxPendingByClass[DatabaseStatistics.heldClass] ?? 0
            if let verification {
                let waiting = try await verification.verificationCounts()
                stats.devicesPending = waiting.pendingDevices
                stats.boxesAwaitingVerification = waiting.boxesAwaitingVerification
            }
            return stats
        }
    }

    /// `POST /admin/places/reload`: one check for a newer places generation, as the admin API
    /// reports it.
    static func placesReload(_ reloader: PlacesReloader) -> @Sendable () async -> PlacesReload {
        {
            let status = reloader.places.status
            switch await reloader.reload() {
            case .unchanged(let generation):
                return PlacesReload(result: "unchanged", generation: generation, switchedAt: status.switchedAt)
            case .switched(let generation):
                return PlacesReload(result: "switched", generation: generation, switchedAt: reloader.places.status.switchedAt)
            case .refused(let candidate, let reason):
                return PlacesReload(
                    result: "refused", generation: status.generation, switchedAt: status.switchedAt, refused: candidate, reason: reason)
            }
        }
    }

    /// The report line's queue: alerts pending in the outbox.
    static func outboxQueue(_ database: DeviceDatabase) -> @Sendable () async -> Int {
        { (try? await database.outboxPending()) ?? 0 }
    }
}
