import FrostboxCore
import Hummingbird
import Logging

/// Builds the HTTP router of Frostbox from route groups. The composition root decides which
/// groups exist; each group only sees the ports it needs.
public struct FrostboxAPI: Sendable {
    /// A group of routes added to the router.
    public typealias RouteGroup = @Sendable (RouteBuilder) -> Void

    let groups: [RouteGroup]
    let middlewares: @Sendable (Router<FrostboxRequestContext>, RouteRegistry) -> Void
    /// Deadline on every handler (see `RequestDeadline`); nil: none.
    let requestTimeout: Duration?

    /// `middlewares` adds middleware after the JSON error middleware (metrics, rate limits…);
    /// it gets the registry so that it can tell known routes from unknown ones.
    public init(
        groups: [RouteGroup], requestTimeout: Duration? = nil,
        middlewares: @escaping @Sendable (Router<FrostboxRequestContext>, RouteRegistry) -> Void = { _, _ in }
    ) {
        self.groups = groups
        self.requestTimeout = requestTimeout
        self.middlewares = middlewares
    }

    /// A router with the JSON error middleware first, then `middlewares`, then every group.
    public func makeRouter() -> Router<FrostboxRequestContext> {
        makeRouterAndRegistry().router
    }

    /// The routes a router of this API serves, recorded afresh: each call builds its own
    /// (throwaway) router, so the list never holds a route twice however often routers are made.
    public var registry: RouteRegistry {
        makeRouterAndRegistry().registry
    }

    /// A router and the registry of exactly its routes. Each router gets a registry of its
    /// own, so making a second router does not grow the first one's list.
    public func makeRouterAndRegistry() -> (router: Router<FrostboxRequestContext>, registry: RouteRegistry) {
        let registry = RouteRegistry()
        // HEAD answers as GET does, without the body (RFC 9110 §9.3.2: uptime checks and proxies
        // probe with it).
        let router = Router(context: FrostboxRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: JSONErrorMiddleware(routes: registry))
        middlewares(router, registry)
        let builder = RouteBuilder(router: router, registry: registry, requestTimeout: requestTimeout)
        for group in groups {
            group(builder)
        }
        return (router, registry)
    }
}
