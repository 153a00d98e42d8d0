import FrostboxCore
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Counts requests and times them by matched route pattern (never the raw path, so label
/// values stay bounded), method and final status, including errors turned into JSON later.
public struct RequestMetricsMiddleware: RouterMiddleware {
    public typealias Context = FrostboxRequestContext

    let cache: Cache
    let errors: JSONErrorMiddleware<Context>

    /// `routes` is the API's registry, used to tell a 405 from a 404 as the error middleware does.
    public init(routes: RouteRegistry, metrics: any MetricsFactory = MetricsSystem.factory) {
        cache = Cache(factory: metrics)
        errors = JSONErrorMiddleware(routes: routes)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status, since: start)
            return response
        } catch {
            record(request, context, status: status(of: error, request: request), since: start)
            throw error
        }
    }

    func status(of error: any Error, request: Request) -> HTTPResponse.Status {
        switch error {
        case let error as APIError: error.status
        case let error as any HTTPResponseError: errors.translate(error.status, request: request).status
        default: .internalServerError
        }
    }

    func record(_ request: Request, _ context: Context, status: HTTPResponse.Status, since start: ContinuousClock.Instant) {
        let route: String
        if let path = context.endpointPath, path != "NotFound" {
            route = path
        } else {
            route = FrostboxMetrics.unmatchedRoute
        }
        let method = Self.knownMethods.contains(request.method) ? request.method.rawValue : "other"
        let key = Key(route: route, method: method, status: status.code)
        let metrics = cache.metrics(for: key)
        metrics.requests.increment()
        metrics.duration.recordNanoseconds((ContinuousClock.now - start).inNanoseconds)
    }

    /// Methods reported by name; anything else a client invents is `other`, so it cannot grow the label set.
    static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]

    struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    struct Metrics: Sendable {
        let requests: Counter
        let duration: Timer
    }

    /// Metric handles per (route, method, status); bounded because routes are the registered
    /// patterns and methods/statuses are few.
    final class Cache: Sendable {
        let factory: any MetricsFactory
        let storage = Mutex<[Key: Metrics]>([:])

        init(factory: any MetricsFactory) {
            self.factory = factory
        }

        func metrics(for key: Key) -> Metrics {
            storage.withLock { storage in
                if let existing = storage[key] { return existing }
                let dimensions = [
                    (FrostboxMetrics.Label.route, key.route),
                    (FrostboxMetrics.Label.method, key.method),
                    (FrostboxMetrics.Label.status, String(key.status)),
                ]
                let metrics = Metrics(
                    requests: Counter(label: FrostboxMetrics.Name.httpRequests, dimensions: dimensions, factory: factory),
                    duration: Timer(
                        label: FrostboxMetrics.Name.httpRequestDuration, dimensions: dimensions,
                        preferredDisplayUnit: .seconds, factory: factory))
                storage[key] = metrics
                return metrics
            }
        }
    }
}
