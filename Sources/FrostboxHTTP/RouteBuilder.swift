import HTTPTypes
import Hummingbird

/// Registers routes on the router and in the `RouteRegistry` at once, so the two never
/// disagree.
public struct RouteBuilder {
    public let router: Router<FrostboxRequestContext>
    public let registry: RouteRegistry

    public init(router: Router<FrostboxRequestContext>, registry: RouteRegistry) {
        self.router = router
        self.registry = registry
    }

    /// Adds `method path` (path in `{parameter}` form) handled by `handler`.
    public func on(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @Sendable @escaping (Request, FrostboxRequestContext) async throws -> some ResponseGenerator
    ) {
        registry.add(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }
}
