import Hummingbird

/// `GET /health`: the process is alive; `GET /ready`: it can do its work.
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
