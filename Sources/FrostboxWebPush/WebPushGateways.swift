import FrostboxCore
import FrostboxPushEngine
import Logging
import NIOCore
import Synchronization

/// The connections to every push service, one gateway per origin, made on first use and
/// shared by every app (a request's VAPID token says whose it is). Each connection goes to the
/// address the guard checks at that moment, never to one a DNS answer gave at registration.
package final class WebPushGateways: Sendable {
    /// Most push services connected to at once (the allow-list's wildcards name many hosts).
    package static let maximumGateways = 256
    private let gateways = Mutex<[String: HTTP2Gateway]>([:])
    private let serviceGuard: WebPushServiceGuard
    private let settings: WebPushConnectionSettings
    private let maximumResends: Int
    private let loops: [any EventLoop]
    private let random: @Sendable () -> Double
    private let logger: Logger

    package init(
        serviceGuard: WebPushServiceGuard, settings: WebPushConnectionSettings, maximumResends: Int, loops: [any EventLoop],
        random: @escaping @Sendable () -> Double, logger: Logger
    ) {
        precondition(!loops.isEmpty, "push gateways need an event loop")
        self.serviceGuard = serviceGuard
        self.settings = settings
        self.maximumResends = maximumResends
        self.loops = loops
        self.random = random
        self.logger = logger
    }

    /// The gateway of `endpoint`'s push service, or the outcome that refuses the push unsent.
    package func gateway(for endpoint: WebPushEndpoint) -> Result<HTTP2Gateway, PushRefusal> {
        guard serviceGuard.services.allows(endpoint) else {
            // Registered when it was allowed; the list changed since.
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: "PushServiceNotAllowed: \(endpoint.origin)")))
        }
        let origin = endpoint.origin
        return gateways.withLock { gateways in
            if let gateway = gateways[origin] { return .success(gateway) }
            guard gateways.count < Self.maximumGateways else {
                return .failure(PushRefusal(.temporaryFailure(reason: "TooManyPushServices")))
            }
            let serviceGuard = self.serviceGuard
            let first = gateways.count % loops.count
            do throws(HTTP2SetupError) {
                let gateway = try HTTP2Gateway(
                    endpoint: HTTP2Endpoint(host: endpoint.host, port: endpoint.port), identity: nil,
                    // A self-hosted push service's CA is trusted for the private push services only.
                    trustedCertificatesPath: serviceGuard.services.privateAllowed.contains(origin) ? settings.trustedCertificatesPath : nil,
                    settings: settings.http2, maximumResends: maximumResends,
                    answerHeader: .byStatus(success: "ttl", failure: "retry-after"), loops: Array(loops[first...] + loops[..<first]), random: random,
                    resolve: { target in try await serviceGuard.addresses(for: target.host, port: target.port, origin: origin) }, logger: logger)
                gateways[origin] = gateway
                return .success(gateway)
            } catch {
                switch error {
                case .tls(let reason): return .failure(PushRefusal(.temporaryFailure(reason: "TLS set-up for \(origin) refused: \(reason)")))
                }
            }
        }
    }

    /// HTTP/2 connections open now, over every push service.
    package var openConnections: Int { gateways.withLock { $0.values.reduce(0) { $0 + $1.openConnections } } }

    /// Requests sent and not yet answered, over every push service.
    package var streamsInFlight: Int { gateways.withLock { $0.values.reduce(0) { $0 + $1.streamsInFlight } } }

    /// Closes every connection. Call once, on the way out.
    package func shutdown() async {
        for gateway in gateways.withLock({ Array($0.values) }) { await gateway.shutdown() }
    }
}
