import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A TLS client certificate chain and its private key (APNs certificate authentication).
package struct HTTP2ClientIdentity: Sendable {
    package let certificateChain: [NIOSSLCertificate]
    package let privateKey: NIOSSLPrivateKey

    package init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

/// The addresses a gateway's connection may go to, in the order to try them, decided afresh for
/// each connection (Web Push's guard: a push service's host is checked against private ranges
/// every time, as a DNS answer can change); nil: the host is resolved as usual.
package typealias HTTP2AddressResolver = @Sendable (HTTP2Endpoint) async throws -> [SocketAddress]

/// A resolver that gave no address to connect to.
package struct HTTP2NoAddressError: Error, CustomStringConvertible {
    package let host: String
    package var description: String { "\(host) resolves to no address" }
}

/// Why a gateway could not be set up.
package enum HTTP2SetupError: Error, Sendable, Equatable {
    /// The TLS configuration (trusted certificates, client identity) was refused.
    case tls(String)
}

/// How a transport's connections are set up: TLS, HTTP/2 limits, the deadline check's pace.
extension HTTP2Transport {
    /// Connects to the first of the addresses `resolve` gives that takes the connection (an
    /// IPv6 address first on a host with no IPv6 route, then the IPv4 one), or to the
    /// endpoint's host.
    static func connect(
        _ bootstrap: ClientBootstrap, to endpoint: HTTP2Endpoint, resolve: HTTP2AddressResolver?, on loop: any EventLoop
    ) -> EventLoopFuture<any Channel> {
        guard let resolve else { return bootstrap.connect(host: endpoint.host, port: endpoint.port) }
        // The bootstrap is used on its loop only: the resolution's future completes there.
        let bound = NIOLoopBound(bootstrap, eventLoop: loop)
        return loop.makeFutureWithTask { try await resolve(endpoint) }.flatMap { addresses in
            guard !addresses.isEmpty else { return loop.makeFailedFuture(HTTP2NoAddressError(host: endpoint.host)) }
            return connect(bound, toFirstOf: addresses[...])
        }
    }

    /// Tries `addresses` in turn; fails with the last one's error.
    private static func connect(_ bound: NIOLoopBound<ClientBootstrap>, toFirstOf addresses: ArraySlice<SocketAddress>) -> EventLoopFuture<any Channel> {
        let connecting = bound.value.connect(to: addresses[addresses.startIndex])
        let rest = addresses.dropFirst()
        guard !rest.isEmpty else { return connecting }
        return connecting.flatMapError { _ in connect(bound, toFirstOf: rest) }
    }

    /// The TLS context of a gateway's connections (shared by its transports).
    static func makeSSLContext(
        endpoint: HTTP2Endpoint, identity: HTTP2ClientIdentity?, trustedCertificatesPath: String?
    ) throws(HTTP2SetupError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        if let trustedCertificatesPath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustedCertificatesPath))
            } catch {
                throw .tls("\(trustedCertificatesPath) holds no PEM certificate to trust")
            }
        }
        if let identity {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw .tls("TLS configuration for \(endpoint) refused: \(error)")
        }
    }

    /// Servers may reset every answered stream (NO_ERROR, as nginx does): the rapid-reset and
    /// glitch guards are meant for servers facing clients, not for this client.
    static let http2Configuration: (NIOHTTP2Handler.ConnectionConfiguration, NIOHTTP2Handler.StreamConfiguration) = {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        // Header blocks are not validated field by field: ours are built from checked parts
        // (APNs: hex token, printable topic, UUID apns-id, digits; FCM: a bearer token and a
        // fixed content type), and of the gateway's answers only `:status` and one named
        // header are read. The validation was a sixth
        // of each event loop's time in bench-push (docs/benchmarks.md, issue #25).
        connection.headerBlockValidation = .disabled
        connection.contentLengthValidation = .disabled
        connection.maximumConnectionGlitches = 1_000_000
        // Frames that arrive on a stream after it was reset (a deadline) are ignored only while
        // it is among the recently reset ones; otherwise they are a connection error.
        connection.maximumRecentlyResetStreams = 2_048
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.streamResetFrameRateLimit.maximumCount = 1_000_000
        stream.streamErrorRateLimit.maximumCount = 1_000_000
        return (connection, stream)
    }()

    /// How often deadlines and idle connections are checked: a quarter of the request
    /// deadline, between 5 ms and 250 ms.
    static func tickInterval(_ settings: HTTP2ConnectionSettings) -> TimeAmount {
        .nanoseconds(min(max(settings.requestTimeout.inNanoseconds / 4, 5_000_000), 250_000_000))
    }
}
