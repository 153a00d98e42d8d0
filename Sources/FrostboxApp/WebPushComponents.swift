import Foundation
import FrostboxCore
import FrostboxHTTP
import FrostboxPushEngine
import FrostboxWebPush
import Logging
import Synchronization

/// Browsers' side of the push capability: the push-service guard (always: registrations are
/// checked whether or not an app is configured), the Web Push apps, and their router, made on
/// the first push over the devices' store. No app: browsers' alerts go to the log.
public final class WebPushComponents: Sendable {
    public let settings: WebPushSettings
    /// Checks browsers' subscriptions at registration and each push service's address at connection.
    public let serviceGuard: WebPushServiceGuard
    private let directory: (any WebPushDirectory)?
    private let budget: (any PushBudgetStore)?
    private let router = Mutex<WebPushRouter?>(nil)
    private let logger: Logger

    /// - Parameters:
    ///   - directory: where the router reads browsers' subscriptions (the devices' store); nil:
    ///     browsers' alerts are logged (commands without a database).
    ///   - budget: the cluster's push budget; nil: this process paces alone.
    public init(
        settings: WebPushSettings, directory: (any WebPushDirectory)?, budget: (any PushBudgetStore)? = nil, logger: Logger
    ) throws(WebPushServicesError) {
        self.settings = settings
        self.serviceGuard = WebPushServiceGuard(services: try settings.services(), logger: logger)
        self.directory = directory
        self.budget = budget
        self.logger = logger
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

    /// The sender of browsers' pushes: the router, or `fallback` with no app or no store.
    func sender(fallback: any PushSender) -> any PushSender {
        settings.apps.isEmpty || directory == nil ? fallback : Sender(components: self)
    }

    /// The router, made on first use.
    func webPushRouter() throws(WebPushConfigurationError) -> WebPushRouter {
        try router.withLock { (router: inout WebPushRouter?) throws(WebPushConfigurationError) -> WebPushRouter in
            if let router { return router }
            guard let directory else { throw .invalidApp("(any)", "cannot send without the devices' store") }
            let made = try WebPushRouter(
                apps: settings.apps, defaultApp: settings.defaultApp, serviceGuard: serviceGuard, directory: directory,
                settings: settings.connection, retryPolicy: settings.retry, clock: { Int64(Date().timeIntervalSince1970) }, budget: budget,
                logger: logger)
            router = made
            return made
        }
    }

    /// Where each paced app stands (empty before the first push).
    var pacing: [PushPacing] { router.withLock { $0 }?.pacing ?? [] }
    /// HTTP/2 connections open now, over every push service.
    var openConnections: Int { router.withLock { $0 }?.openConnections ?? 0 }
    /// Requests awaiting an answer now.
    var streamsInFlight: Int { router.withLock { $0 }?.streamsInFlight ?? 0 }

    /// Closes the push services' connections, if any were opened.
    func shutdown() async {
        let opened = router.withLock { router in
            defer { router = nil }
            return router
        }
        await opened?.shutdown()
    }

    deinit {
        if let opened = router.withLock({ $0 }) {
            Task { await opened.shutdown() }
        }
    }

    /// Sends through the router, made on first push.
    private struct Sender: PushSender {
        let components: WebPushComponents

        func send(_ batch: [PushNotification]) -> PushOutcomes {
            do {
                return try components.webPushRouter().send(batch)
            } catch {
                components.logger.critical("Web Push client could not start", metadata: ["error": "\(error.message)"])
                return PushOutcomes(batch.map { _ in .authFailure(reason: "WebPushClientUnavailable") })
            }
        }
    }
}
