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
    /// Deadline on answering a request.
    public let requestTimeout: Duration?
    /// How often the report is logged.
    public let reportInterval: Duration

    public init(config: FrostboxConfig, telemetry: FrostboxTelemetry = FrostboxTelemetry()) {
        self.telemetry = telemetry
        report = OperationsReport()
        rateLimiter = RateLimiter(settings: config.rateLimit)
        adminToken = config.adminToken
        requestTimeout = config.requestTimeout > .zero ? config.requestTimeout : nil
        reportInterval = config.reportInterval
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
        var groups: [FrostboxAPI.RouteGroup] = [OperationsRoutes(renderMetrics: { telemetry.render() }).add(to:)]
        if let token = operations.adminToken {
            groups.append(AdminRoutes(token: token, operations: admin).add(to:))
        }
        return groups
    }

    /// Counts for `GET /admin/stats`.
    static func adminStats(database: FrostboxDatabase) -> @Sendable () async throws -> AdminStats {
        {
            let counts = try await database.statistics()
            return AdminStats(devices: counts.devices, subscriptions: counts.subscriptions, boxes: counts.boxes, places: counts.places)
        }
    }
}
