import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import Metrics

/// Refuses requests beyond a client's token bucket with a 429 JSON error and `Retry-After`.
/// Probes and scrapes (`exemptRoutes`) are never limited, so a flood cannot fail health checks.
public struct RateLimitMiddleware: RouterMiddleware {
    public typealias Context = FrostboxRequestContext

    let limiter: RateLimiter
    /// Route patterns (as registered) that are not limited.
    let exemptRoutes: Set<String>
    let limited: Counter
    let clients: Gauge

    public init(
        limiter: RateLimiter, exemptRoutes: Set<String> = ["/health", "/ready", "/metrics"],
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.limiter = limiter
        self.exemptRoutes = exemptRoutes
        self.limited = Counter(label: FrostboxMetrics.Name.httpRateLimited, factory: metrics)
        self.clients = Gauge(label: FrostboxMetrics.Name.httpRateLimitClients, factory: metrics)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let route = context.endpointPath, exemptRoutes.contains(route) {
            return try await next(request, context)
        }
        let key = RateLimiter.clientKey(address: clientAddress(request, context))
        let decision = limiter.acquire(key)
        clients.record(limiter.trackedClients)
        switch decision {
        case .allowed:
            return try await next(request, context)
        case .limited(let retryAfter):
            limited.increment()
            var headers = HTTPFields()
            headers[.retryAfter] = String(retryAfter)
            throw APIError(.tooManyRequests, code: "rate_limited", "too many requests; retry after \(retryAfter) s", headers: headers)
        }
    }

    /// The client's address: the transport's peer, or for a request from a trusted proxy the
    /// right-most `X-Forwarded-For` address that is not a trusted proxy (`TrustedProxies`).
    func clientAddress(_ request: Request, _ context: Context) -> String? {
        limiter.settings.trustedProxies.client(peer: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`, set by reverse proxies.
    static var xForwardedFor: Self { .init("X-Forwarded-For")! }
}
