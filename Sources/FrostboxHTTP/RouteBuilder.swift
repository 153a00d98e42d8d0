import HTTPTypes
import Hummingbird

/// Registers routes on the router and in the `RouteRegistry` at once, so the two never
/// disagree.
public struct RouteBuilder {
    public let router: Router<FrostboxRequestContext>
    public let registry: RouteRegistry
    /// Longest time a handler may take to answer (see `RequestDeadline`); nil: no deadline.
    public let requestTimeout: Duration?

    public init(router: Router<FrostboxRequestContext>, registry: RouteRegistry, requestTimeout: Duration? = nil) {
        self.router = router
        self.registry = registry
        self.requestTimeout = requestTimeout
    }

    /// Adds `method path` (path in `{parameter}` form) handled by `handler`.
    public func on(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @Sendable @escaping (Request, FrostboxRequestContext) async throws -> some ResponseGenerator
    ) {
        registry.add(method, path)
        guard let timeout = requestTimeout else {
            router.on(RouterPath(path), method: method, use: handler)
            return
        }
        router.on(RouterPath(path), method: method) { request, context in
            try await RequestDeadline.run(timeout, request: request, context: context) { request, context in
                try await handler(request, context).response(from: request, context: context)
            }
        }
    }
}
