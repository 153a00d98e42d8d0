import HTTPTypes
import Synchronization

/// The list of routes the API serves, kept next to the router so that a wrong method can be
/// answered with 405 and the OpenAPI document can be checked against what really exists.
public final class RouteRegistry: Sendable {
    /// One served route: method and path pattern with `{parameter}` segments.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public let method: HTTPRequest.Method
        public let path: String
        public var description: String { "\(method.rawValue) \(path)" }
    }

    private let storage = Mutex<[Route]>([])

    public init() {}

    /// Records a route (the router registration is done by the caller).
    public func add(_ method: HTTPRequest.Method, _ path: String) {
        storage.withLock { $0.append(Route(method: method, path: path)) }
    }

    /// Every recorded route.
    public var routes: [Route] { storage.withLock { $0 } }

    /// Methods served on a concrete path, e.g. `[.get, .head, .post]` for
    /// `/v1/devices/ab/subscriptions` (HEAD wherever GET is: the router answers it).
    public func methods(matching path: String) -> Set<HTTPRequest.Method> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods = Set(routes.filter { Self.matches(pattern: $0.path, segments: segments) }.map(\.method))
        if methods.contains(.get) { methods.insert(.head) }
        return methods
    }

    static func matches(pattern: String, segments: [Substring]) -> Bool {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == segments.count else { return false }
        return zip(parts, segments).allSatisfy { part, segment in
            (part.hasPrefix("{") && part.hasSuffix("}")) || part == segment
        }
    }
}
