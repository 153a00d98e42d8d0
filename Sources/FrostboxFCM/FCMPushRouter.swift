import Foundation
import FrostboxCore
import FrostboxPushEngine
import Logging
import NIOCore
import NIOPosix

/// The push port for Android: each configured package name has its own push client (the
/// engine's, with `FCMPlatform`) and its own HTTP/2 connections to FCM (a gateway spread over
/// the event loops), and a message goes to the client named by its `app` (nil: the default
/// app). Apps share one access token per service account, and one token-endpoint client per
/// trust setting.
public final class FCMPushRouter: PushSender {
    /// The app for messages without an `app`.
    public var defaultPackageName: String? { router.defaultApp }
    private let router: PushAppRouter<FCMPlatform>
    private let gateways: [HTTP2Gateway]
    private let pacers: [PushPacer]
    private let https: [FCMHTTP]

    /// - Parameters:
    ///   - clock: UTC epoch seconds, for assertions, token expiry and TTLs.
    ///   - sleep: waits between retries (tests inject one that returns at once).
    ///   - random: a number in 0..<1 for backoff jitter.
    ///   - tokenExchange: replaces the HTTP token request (tests); nil: the real one.
    ///   - budget: where the apps' message budgets are kept (`PostgresPushBudget` shares them
    ///     with the cluster); nil: in this process.
    ///   - wallClock: epoch milliseconds, for the pacers' windows.
    ///   - pacerSleep: the pacers' waits.
    public init(
        apps: [FCMApp], defaultPackageName: String? = nil, settings: FCMConnectionSettings = .init(), retryPolicy: PushRetryPolicy = .fcm,
        clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        tokenExchange: (any FCMTokenExchange)? = nil,
        budget: (any PushBudgetStore)? = nil,
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) },
        pacerSleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
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

        let loops = Array(eventLoopGroup.makeIterator())
        var https: [String: FCMHTTP] = [:]
        var sources: [String: FCMAccessTokenSource] = [:]
        var clients: [String: PushClient<FCMPlatform>] = [:]
        var gateways: [HTTP2Gateway] = []
        var pacers: [PushPacer] = []
        let budget = budget ?? LocalPushBudget()
        for app in apps {
            guard let endpoint = app.endpoint else { throw .invalidApp(app.settings.packageName, "url \(app.settings.url) has no host") }
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
            // Each app's gateway starts on another loop, so apps with one connection spread too.
            let first = loops.isEmpty ? 0 : gateways.count % loops.count
            let rotated = loops.isEmpty ? [eventLoopGroup.next()] : Array(loops[first...] + loops[..<first])
            let gateway: HTTP2Gateway
            do throws(HTTP2SetupError) {
                gateway = try HTTP2Gateway(
                    endpoint: endpoint, identity: nil, trustedCertificatesPath: app.settings.trustedCertificatesPath, settings: settings.http2,
                    maximumResends: retryPolicy.maximumUnprocessedResends, answerHeader: .named("retry-after"), indexPaths: true, loops: rotated,
                    random: random,
                    logger: logger)
            } catch {
                switch error {
                case .tls(let reason): throw .invalidApp(app.settings.packageName, reason)
                }
            }
            gateways.append(gateway)
            let pacer =
                app.settings.messagesPerMinute > 0
                ? PushPacer(
                    key: "fcm." + app.settings.packageName, messagesPerMinute: app.settings.messagesPerMinute, store: budget, clock: wallClock,
                    sleep: pacerSleep) : nil
            if let pacer { pacers.append(pacer) }
            clients[app.settings.packageName] = PushClient(
                platform: FCMPlatform(app: app, gateway: gateway, tokens: source, clock: clock), pacer: pacer,
                retryPolicy: retryPolicy, sleep: sleep, random: random, logger: logger)
            logger.info(
                "FCM app configured",
                metadata: [
                    "fcm.app": "\(app.settings.packageName)", "project": "\(app.projectID)", "url": "\(app.settings.url)",
                    "account": "\(app.account.clientEmail)",
                    "messages-per-minute": "\(app.settings.messagesPerMinute == 0 ? "unpaced" : String(app.settings.messagesPerMinute))",
                ])
        }
        router = PushAppRouter(
            devices: .android, clients: clients, defaultApp: defaultPackageName,
            refusals: .init(otherPlatform: "NotAnAndroidDevice", missingApp: "MissingApp", unknownApp: "UnknownApp"), logger: logger)
        self.gateways = gateways
        self.pacers = pacers
        self.https = Array(https.values)
    }

    /// Where each paced app stands (its budget, waits, pauses), by budget key.
    public var pacing: [PushPacing] { pacers.map(\.snapshot).sorted { $0.budget < $1.budget } }

    /// The package names this router pushes for.
    public var packageNames: [String] { router.apps }

    /// The client of one app.
    package func client(for packageName: String) -> PushClient<FCMPlatform>? { router.client(for: packageName) }

    /// Sends a batch: the messages of each app through its client, whose gateway takes the
    /// batch's first attempts in one hand-over per event loop; the outcomes come back as the
    /// answers do.
    public func send(_ batch: [PushNotification]) -> PushOutcomes { router.send(batch) }

    /// HTTP/2 connections open now, over every app.
    public var openConnections: Int { gateways.reduce(0) { $0 + $1.openConnections } }

    /// Requests sent and not yet answered, over every app.
    public var streamsInFlight: Int { gateways.reduce(0) { $0 + $1.streamsInFlight } }

    /// Closes every connection. Call once, on the way out.
    public func shutdown() async {
        for gateway in gateways { await gateway.shutdown() }
        for http in https { await http.shutdown() }
    }
}
