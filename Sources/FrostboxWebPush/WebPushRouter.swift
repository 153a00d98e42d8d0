import Foundation
import FrostboxCore
import FrostboxPushEngine
import Logging
import NIOCore
import NIOPosix

/// The push port for browsers: each configured Web Push app has its own push client (the
/// engine's, with `WebPushPlatform`); every app shares the push services' connections (one
/// gateway per origin). A batch's subscriptions are read from the devices' store once, and the
/// batch is cut in one part per core, since each message's encryption costs an ECDH.
public final class WebPushRouter: PushSender {
    /// The app for browsers that name none.
    public var defaultApp: String? { router.defaultApp }
    private let router: PushAppRouter<WebPushPlatform>
    private let gateways: WebPushGateways
    private let directory: any WebPushDirectory
    private let pacers: [PushPacer]
    private let parts: Int
    private let logger: Logger

    /// - Parameters:
    ///   - directory: where each browser's subscription is read (the devices' store).
    ///   - clock: UTC epoch seconds, for TTLs and VAPID tokens.
    ///   - budget: where paced apps' budgets are kept (nil: in this process).
    public init(
        apps: [WebPushApp], defaultApp: String? = nil, serviceGuard: WebPushServiceGuard, directory: any WebPushDirectory,
        settings: WebPushConnectionSettings = .init(), retryPolicy: PushRetryPolicy = .init(), clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, budget: (any PushBudgetStore)? = nil,
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) },
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) throws(WebPushConfigurationError) {
        let defaultApp = defaultApp ?? (apps.count == 1 ? apps[0].name : nil)
        if let defaultApp, !apps.contains(where: { $0.name == defaultApp }) {
            throw .invalidApp(defaultApp, "is the default app but not configured")
        }
        let loops = Array(eventLoopGroup.makeIterator())
        gateways = WebPushGateways(
            serviceGuard: serviceGuard, settings: settings, maximumResends: retryPolicy.maximumUnprocessedResends,
            loops: loops.isEmpty ? [eventLoopGroup.next()] : loops, random: random, logger: logger)
        let ttlWatch = WebPushTTLWatch(logger: logger)
        var clients: [String: PushClient<WebPushPlatform>] = [:]
        var pacers: [PushPacer] = []
        let budget = budget ?? LocalPushBudget()
        for app in apps {
            guard clients[app.name] == nil else { throw .invalidApp(app.name, "configured twice") }
            let pacer =
                app.messagesPerMinute > 0
                ? PushPacer(
                    key: "webpush." + app.name, messagesPerMinute: app.messagesPerMinute, store: budget, clock: wallClock,
                    sleep: { try await Task.sleep(for: $0) }) : nil
            if let pacer { pacers.append(pacer) }
            clients[app.name] = PushClient(
                platform: WebPushPlatform(app: app, gateways: gateways, clock: clock, ttlWatch: ttlWatch), pacer: pacer, retryPolicy: retryPolicy, sleep: sleep,
                random: random, logger: logger)
            logger.info(
                "Web Push app configured",
                metadata: ["webpush.app": "\(app.name)", "public-key": "\(app.key.publicKeyBase64URL)", "subject": "\(app.subject)"])
        }
        router = PushAppRouter(
            devices: .web, clients: clients, defaultApp: defaultApp,
            refusals: .init(otherPlatform: "NotABrowser", missingApp: "MissingApp", unknownApp: "UnknownApp"), logger: logger)
        self.directory = directory
        self.pacers = pacers
        self.parts = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.logger = logger
    }

    /// The apps this router pushes for.
    public var apps: [String] { router.apps }

    /// Where each paced app stands, by budget key.
    public var pacing: [PushPacing] { pacers.map(\.snapshot).sorted { $0.budget < $1.budget } }

    /// Sends a batch: the subscriptions of its browsers read once, then every part of it at
    /// once through the apps' clients; a browser no longer registered is `NotRegistered`.
    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        let router = self.router
        let directory = self.directory
        let parts = self.parts
        let logger = self.logger
        return PushOutcomes(grouped: { yieldAll in
            let unknown = batch.filter { $0.webPush == nil }.map(\.token)
            var found: [DeviceToken: WebPushSubscription] = [:]
            var unread: String?
            if !unknown.isEmpty {
                do {
                    found = try await directory.webPushSubscriptions(of: unknown)
                } catch {
                    logger.warning("browser subscriptions not read", metadata: ["error": "\(error)"])
                    unread = "subscriptions not read: \(error)"
                }
            }
            var sendable: [(index: Int, notification: PushNotification)] = []
            var failed: [(index: Int, outcome: PushOutcome)] = []
            for (index, notification) in batch.enumerated() {
                var notification = notification
                if notification.webPush == nil {
                    if let unread {
                        failed.append((index, .temporaryFailure(reason: unread)))
                        continue
                    }
                    // Still nil: the browser is no longer registered (the platform says so).
                    notification.webPush = found[notification.token]
                }
                sendable.append((index, notification))
            }
            yieldAll(failed)
            let size = max(1, (sendable.count + parts - 1) / parts)
            await withTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: sendable.count, by: size) {
                    let part = sendable[start..<min(sendable.count, start + size)]
                    group.addTask {
                        // The part's outcomes, in the groups they come in, under the batch's indices.
                        let indices = part.map(\.index)
                        await router.send(part.map(\.notification)) { outcomes in
                            yieldAll(outcomes.map { (indices[$0.index], $0.outcome) })
                        }
                    }
                }
            }
        })
    }

    /// HTTP/2 connections open now, over every push service.
    public var openConnections: Int { gateways.openConnections }

    /// Requests sent and not yet answered.
    public var streamsInFlight: Int { gateways.streamsInFlight }

    /// Closes every connection. Call once, on the way out.
    public func shutdown() async { await gateways.shutdown() }
}
