import Foundation
import FrostboxCore
import FrostboxHTTP
import FrostboxPushEngine
import FrostboxWebPush
import Logging

/// Browsers' side of the push capability: the push-service guard (always: registrations are
/// checked whether or not an app is configured), the Web Push apps, and their router, made on
/// the first push over the devices' store. No app: browsers' alerts go to the log.
public final class WebPushComponents: Sendable {
    public let settings: WebPushSettings
    /// Checks browsers' subscriptions at registration and each push service's address at connection.
    public let serviceGuard: WebPushServiceGuard
    private let hasDirectory: Bool
    private let router: LazyPushRouter<WebPushRouter>

    /// - Parameters:
    ///   - directory: where the router reads browsers' subscriptions (the devices' store); nil:
    ///     browsers' alerts are logged (commands without a database).
    ///   - budget: the cluster's push budget; nil: this process paces alone.
    public init(
        settings: WebPushSettings, directory: (any WebPushDirectory)?, budget: (any PushBudgetStore)? = nil, logger: Logger
    ) throws(WebPushServicesError) {
        let serviceGuard = WebPushServiceGuard(services: try settings.services(), logger: logger)
        self.settings = settings
        self.serviceGuard = serviceGuard
        self.hasDirectory = directory != nil
        self.router = LazyPushRouter(name: "Web Push", logger: logger) {
            guard let directory else { throw WebPushConfigurationError.invalidApp("(any)", "cannot send without the devices' store") }
            return try WebPushRouter(
                apps: settings.apps, defaultApp: settings.defaultApp, serviceGuard: serviceGuard, directory: directory,
                settings: settings.connection, retryPolicy: settings.retry, clock: { Int64(Date().timeIntervalSince1970) }, budget: budget,
                logger: logger)
        }
        if settings.apps.isEmpty {
            logger.notice("no Web Push app configured: browsers' pushes are only logged (set webpush.apps to send them)")
        }
    }

    /// The apps' names.
    public var apps: [String] { settings.apps.map(\.name) }

    /// What the device API needs to take browsers.
    public var registration: WebPushRegistration {
        WebPushRegistration(
            admission: serviceGuard, publicKeys: Dictionary(uniqueKeysWithValues: settings.apps.map { ($0.name, $0.key.publicKeyBase64URL) }),
            defaultApp: settings.defaultApp)
    }

    /// The sender of browsers' pushes: the router (made on the first push), or `fallback` with
    /// no app or no store.
    func sender(fallback: any PushSender) -> any PushSender {
        settings.apps.isEmpty || !hasDirectory ? fallback : router
    }

    /// Where each paced app stands (empty before the first push).
    var pacing: [PushPacing] { router.current?.pacing ?? [] }
    /// HTTP/2 connections open now, over every push service.
    var openConnections: Int { router.openConnections }
    /// Requests awaiting an answer now.
    var streamsInFlight: Int { router.streamsInFlight }

    /// Closes the push services' connections, if any were opened.
    func shutdown() async { await router.shutdown() }
}
