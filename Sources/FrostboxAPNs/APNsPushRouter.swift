import FrostboxCore
import FrostboxPushEngine
import Logging
import NIOCore
import NIOPosix

/// The push port for iOS devices of a process that serves several apps: each configured
/// bundle id has its own push client (the engine's, with `APNsPlatform`), and a push goes to the client named by its `app`
/// (nil: the default app). Gateways are shared: one `HTTP2Gateway` (HTTP/2 connections spread over
/// every event loop of the group) per (endpoint, TLS identity), so apps on token auth share
/// connections; one provider token per (team, key), shared by all its apps.
public final class APNsPushRouter: PushSender {
    /// The app for pushes without a topic.
    public var defaultBundleID: String? { router.defaultApp }
    private let router: PushAppRouter<APNsPlatform>
    private let gateways: [HTTP2Gateway]

    /// - Parameters:
    ///   - clock: UTC epoch seconds, for provider-token `iat` and renewal.
    ///   - sleep: waits between retries (tests inject one that returns at once).
    ///   - random: a number in 0..<1 for backoff jitter.
    public init(
        apps: [APNsAppSettings], defaultBundleID: String? = nil,
        settings: APNsConnectionSettings = .init(), retryPolicy: PushRetryPolicy = .init(),
        clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(APNsConfigurationError) {
        let defaultBundleID = defaultBundleID ?? (apps.count == 1 ? apps[0].bundleID : nil)
        if let defaultBundleID, !apps.contains(where: { $0.bundleID == defaultBundleID }) {
            throw .unknownDefaultApp(defaultBundleID)
        }

        // Check everything first: nothing opens a connection before the first push, but a
        // half-made router is not worth having.
        var seen: Set<String> = []
        for app in apps {
            guard !app.bundleID.isEmpty, app.bundleID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalidApp(app.bundleID, "bundle id must be printable ASCII without spaces")
            }
            guard seen.insert(app.bundleID).inserted else { throw .invalidApp(app.bundleID, "configured twice") }
        }

        struct TransportKey: Hashable {
            var endpoint: APNsEndpoint
            var identity: String
            var trust: String?
        }
        var gateways: [TransportKey: HTTP2Gateway] = [:]
        let payloads = APNsPayloadEncoder()
        let loops = Array(eventLoopGroup.makeIterator())
        var issuers: [String: APNsProviderTokenIssuer] = [:]
        var clients: [String: PushClient<APNsPlatform>] = [:]
        for app in apps {
            var identity: APNsClientIdentity?
            var issuer: APNsProviderTokenIssuer?
            switch app.credentials {
            case .token(let key):
                let id = key.teamID + "." + key.keyID
                issuer = issuers[id] ?? APNsProviderTokenIssuer(key: key, clock: clock)
                issuers[id] = issuer
            case .certificate(let certificate):
                identity = certificate
            }
            var appGateways: [PushEnvironment: HTTP2Gateway] = [:]
            for environment in PushEnvironment.allCases {
                let endpoint = app.endpoint(for: environment)
                let key = TransportKey(endpoint: endpoint, identity: identity?.poolKey ?? "", trust: app.trustedCertificatesPath)
                if gateways[key] == nil {
                    // Each gateway starts on a different loop, so gateways with one connection spread too.
                    let first = loops.isEmpty ? 0 : gateways.count % loops.count
                    let rotated = loops.isEmpty ? [eventLoopGroup.next()] : Array(loops[first...] + loops[..<first])
                    do throws(HTTP2SetupError) {
                        gateways[key] = try HTTP2Gateway(
                            endpoint: endpoint, identity: identity?.tls, trustedCertificatesPath: app.trustedCertificatesPath,
                            settings: settings, maximumResends: retryPolicy.maximumUnprocessedResends, answerHeader: .named("apns-id"),
                            loops: rotated, random: random, logger: logger)
                    } catch {
                        switch error {
                        case .tls(let reason): throw .invalidCertificate(reason)
                        }
                    }
                }
                appGateways[environment] = gateways[key]
            }
            clients[app.bundleID] = PushClient(
                platform: APNsPlatform(app: app, gateways: appGateways, payloads: payloads, issuer: issuer, logger: logger),
                retryPolicy: retryPolicy, sleep: sleep, random: random, logger: logger)
            logger.info(
                "APNs app configured",
                metadata: [
                    "apns.topic": "\(app.bundleID)", "environment": "\(app.environment.rawValue)",
                    "endpoint": "\(app.endpoint(for: nil))", "credentials": "\(app.credentials)",
                ])
        }
        router = PushAppRouter(
            devices: .ios, clients: clients, defaultApp: defaultBundleID,
            refusals: .init(otherPlatform: "NotAnAPNsDevice", missingApp: "MissingTopic", unknownApp: "TopicDisallowed"), logger: logger)
        self.gateways = Array(gateways.values)
    }

    /// The bundle ids this router pushes for.
    public var bundleIDs: [String] { router.apps }

    /// The client of one app.
    package func client(for bundleID: String) -> PushClient<APNsPlatform>? { router.client(for: bundleID) }

    /// Sends a batch: the pushes of each app through its client, whose gateway takes the
    /// batch's first attempts in one hand-over per event loop; the outcomes come back as the
    /// answers do.
    public func send(_ batch: [PushNotification]) -> PushOutcomes { router.send(batch) }

    /// HTTP/2 connections open now, over every gateway.
    public var openConnections: Int { gateways.reduce(0) { $0 + $1.openConnections } }

    /// Requests sent and not yet answered, over every gateway.
    public var streamsInFlight: Int { gateways.reduce(0) { $0 + $1.streamsInFlight } }

    /// Closes every connection. Call once, on the way out.
    public func shutdown() async {
        for gateway in gateways {
            await gateway.shutdown()
        }
    }
}
