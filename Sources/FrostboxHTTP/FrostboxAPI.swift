import FrostboxCore
import Hummingbird
import Logging

/// Builds the HTTP router of Frostbox from route groups. The composition root decides which
/// groups exist; each group only sees the ports it needs.
public struct FrostboxAPI: Sendable {
    /// A group of routes added to the router.
    public typealias RouteGroup = @Sendable (RouteBuilder) -> Void

    public let registry = RouteRegistry()
    let groups: [RouteGroup]
    let middlewares: @Sendable (Router<FrostboxRequestContext>) -> Void

    /// `middlewares` adds middleware after the JSON error middleware (metrics, rate limits…).
    public init(groups: [RouteGroup], middlewares: @escaping @Sendable (Router<FrostboxRequestContext>) -> Void = { _ in }) {
        self.groups = groups
        self.middlewares = middlewares
    }

    /// A router with the JSON error middleware first, then `middlewares`, then every group.
    public func makeRouter() -> Router<FrostboxRequestContext> {
        let router = Router(context: FrostboxRequestContext.self)
        router.add(middleware: JSONErrorMiddleware(routes: registry))
        middlewares(router)
        let builder = RouteBuilder(router: router, registry: registry)
        for group in groups {
            group(builder)
        }
        return router
    }
}

/// `GET /health`: the process is alive.
public struct HealthRoutes: Sendable {
    /// Whether the service can do its work (database reachable, migrations applied).
    let ready: @Sendable () async -> Bool

    public init(ready: @escaping @Sendable () async -> Bool) {
        self.ready = ready
    }

    public func add(to routes: RouteBuilder) {
        routes.on(.get, "/health") { _, _ in
            JSONResponse(.ok, ["status": "ok"])
        }
        routes.on(.get, "/ready") { _, _ in
            guard await ready() else {
                throw APIError(.serviceUnavailable, code: "not_ready", "database not reachable or not migrated")
            }
            return JSONResponse(.ok, ["status": "ready"])
        }
    }
}
