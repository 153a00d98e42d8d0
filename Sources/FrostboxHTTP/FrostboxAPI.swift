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
        let router = Router(context: FrostboxRequestContext.self)
        router.add(middleware: JSONErrorMiddleware(routes: registry))
        middlewares(router, registry)
        let builder = RouteBuilder(router: router, registry: registry, requestTimeout: requestTimeout)
        for group in groups {
            group(builder)
        }
        return router
    }
}
