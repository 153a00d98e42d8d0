import FrostboxCore
import FrostboxPushEngine

/// Where an app's pushes go: Apple's production or sandbox gateway, or any host:port that
/// speaks the same protocol (the local mock, a staging proxy).
public typealias APNsEndpoint = HTTP2Endpoint

extension HTTP2Endpoint {
    /// `api.push.apple.com:443`.
    public static let production = HTTP2Endpoint(host: "api.push.apple.com")
    /// `api.sandbox.push.apple.com:443`, for development builds of the app.
    public static let sandbox = HTTP2Endpoint(host: "api.sandbox.push.apple.com")

    /// Apple's gateway for `environment`.
    public static func apple(_ environment: PushEnvironment) -> HTTP2Endpoint {
        switch environment {
        case .production: .production
        case .sandbox: .sandbox
        }
    }
}
