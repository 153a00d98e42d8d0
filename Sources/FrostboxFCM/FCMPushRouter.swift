import FrostboxCore
import Logging
import NIOCore
import NIOPosix

/// The push port for Android: each configured package name has its own `FCMClient`, and a
/// message goes to the client named by its `app` (nil: the default app). Apps share what can
/// be shared: one HTTP/2 client per trust setting (so every app's messages travel over the
/// same few connections to FCM), one access token per service account.
public final class FCMPushRouter: PushSender {
    /// The app for messages without an `app`.
    public let defaultPackageName: String?
    private let clients: [String: FCMClient]
    private let https: [FCMHTTP]
    private let settings: FCMConnectionSettings
    private let logger: Logger

    /// - Parameters:
    ///   - clock: UTC epoch seconds, for assertions, token expiry and TTLs.
    ///   - sleep: waits between retries (tests inject one that returns at once).
    ///   - random: a number in 0..<1 for backoff jitter.
    ///   - tokenExchange: replaces the HTTP token request (tests); nil: the real one.
    public init(
        apps: [FCMApp], defaultPackageName: String? = nil, settings: FCMConnectionSettings = .init(), retryPolicy: FCMRetryPolicy = .init(),
        clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        tokenExchange: (any FCMTokenExchange)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(FCMConfigurationError) {
        let defaultPackageName = defaultPackageName ?? (apps.count == 1 ? apps[0].settings.packageName : nil)
        if let defaultPackageName, !apps.contains(where: { $0.settings.packageName == defaultPackageName }) {
            throw .unknownDefaultApp(defaultPackageName)
        }
        var seen: Set<String> = []
        for app in apps {
            guard seen.insert(app.settings.packageName).inserted else { throw .invalidApp(app.settings.packageName, "configured twice") }
        }

        var https: [String: FCMHTTP] = [:]
        var sources: [String: FCMAccessTokenSource] = [:]
        var clients: [String: FCMClient] = [:]
        for app in apps {
            let trust = app.settings.trustedCertificatesPath ?? ""
            let http: FCMHTTP
            if let shared = https[trust] {
                http = shared
            } else {
                http = try FCMHTTP(trustedCertificatesPath: app.settings.trustedCertificatesPath, settings: settings, eventLoopGroup: eventLoopGroup)
                https[trust] = http
            }
            let accountKey = app.account.clientEmail + " " + app.account.tokenURI
            let source =
                sources[accountKey]
                ?? FCMAccessTokenSource(account: app.account, exchange: tokenExchange ?? FCMHTTPTokenExchange(http: http), clock: clock)
            sources[accountKey] = source
            clients[app.settings.packageName] = FCMClient(
                app: app, tokens: source, http: http, retryPolicy: retryPolicy, clock: clock, sleep: sleep, random: random, logger: logger)
            logger.info(
                "FCM app configured",
                metadata: [
                    "fcm.app": "\(app.settings.packageName)", "project": "\(app.projectID)", "url": "\(app.settings.url)",
                    "account": "\(app.account.clientEmail)",
                ])
        }
        self.defaultPackageName = defaultPackageName
        self.clients = clients
        self.https = Array(https.values)
        self.settings = settings
        self.logger = logger
    }

    /// The package names this router pushes for.
    public var packageNames: [String] { clients.keys.sorted() }

    /// The client of one app.
    public func client(for packageName: String) -> FCMClient? { clients[packageName] }

    /// Sends a batch, at most `maximumConcurrentSends` messages in flight; each outcome is
    /// yielded as soon as it is known. Once the sending is stopped (`PushOutcomes.stopSending`),
    /// messages not yet sent are answered as temporary failures without being sent; those in
    /// flight still answer.
    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        let limit = max(1, settings.maximumConcurrentSends)
        return PushOutcomes { yield in
            await withTaskGroup(of: PushOutcomes.Element.self) { group in
                var next = 0
                func addNext() {
                    let index = next
                    let notification = batch[index]
                    next += 1
                    group.addTask { (index, await self.sendOne(notification)) }
                }
                while next < min(limit, batch.count) { addNext() }
                for await done in group {
                    yield(done.index, done.outcome)
                    guard next < batch.count else { continue }
                    if Task.isCancelled {
                        for index in next..<batch.count { yield(index, .temporaryFailure(reason: "cancelled")) }
                        next = batch.count
                    } else {
                        addNext()
                    }
                }
            }
        }
    }

    /// Routes one message to its app's client.
    func sendOne(_ notification: PushNotification) async -> PushOutcome {
        guard notification.platform == .android else {
            return .permanentFailure(status: 400, reason: "NotAnAndroidDevice")
        }
        guard let packageName = notification.app ?? defaultPackageName else {
            logger.debug("push without app and no default FCM app configured", metadata: ["token": "\(notification.token)"])
            return .permanentFailure(status: 400, reason: "MissingApp")
        }
        guard let client = clients[packageName] else {
            logger.debug("push for an FCM app that is not configured", metadata: ["fcm.app": "\(packageName)"])
            return .permanentFailure(status: 400, reason: "UnknownApp")
        }
        return await client.send(notification)
    }

    /// Closes every connection. Call once, on the way out.
    public func shutdown() async {
        for http in https {
            await http.shutdown()
        }
    }
}
