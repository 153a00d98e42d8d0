import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// What one HTTP/2 exchange with a gateway gave.
enum APNsExchange: Sendable {
    /// The gateway answered.
    case response(status: Int, apnsID: String?, body: ByteBuffer?)
    /// The request certainly was not processed (refused stream, GOAWAY above its stream id,
    /// a connection closing before it was sent): resend at once.
    case unprocessed(String)
    /// No answer (connection lost, timeout, TLS failure): it may or may not have been processed.
    case failed(String)
}

/// The HTTP/2 connections to one gateway (one endpoint, one TLS identity): one `HTTPClient`,
/// never switched to another host. Requests are spread over up to `maximumConnections`
/// connections, one per event loop: the first carries everything until it has
/// `streamsPerConnection` requests in flight, then the next one opens, and so on. Idle
/// connections close after `idleTimeout`; quiet ones are pinged.
final class APNsHTTPTransport: Sendable {
    let endpoint: APNsEndpoint
    private let client: HTTPClient
    private let eventLoops: [any EventLoop]
    private let settings: APNsConnectionSettings
    private let inFlight = Atomic<Int>(0)
    private let connections = ConnectionCount()
    private let baseURL: String

    /// HTTP/2 connections to the gateway open now.
    var openConnections: Int { connections.value.load(ordering: .relaxed) }

    init(
        endpoint: APNsEndpoint, identity: APNsClientIdentity?, trustedCertificatesPath: String?,
        settings: APNsConnectionSettings, eventLoopGroup: any EventLoopGroup
    ) throws(APNsConfigurationError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let trustedCertificatesPath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustedCertificatesPath))
            } catch {
                throw .invalidCertificate("\(trustedCertificatesPath) holds no PEM certificate to trust")
            }
        }
        if let identity {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }

        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(settings.connectTimeout), read: nil),
            connectionPool: .init(idleTimeout: .init(settings.idleTimeout)),
            ignoreUncleanSSLShutdown: false,
            decompression: .disabled
        )
        configuration.httpVersion = .automatic
        // The client's retry policy owns retries; a refused connect fails the request at once.
        configuration.connectionPool.retryConnectionEstablishment = false
        let pingInterval = TimeAmount(settings.pingInterval)
        let pingTimeout = TimeAmount(settings.pingTimeout)
        let connections = self.connections
        // AsyncHTTPClient offers no other hook into its HTTP/2 connection pipeline; the
        // "debug" initializer runs once per new connection, before it takes requests.
        configuration.http2ConnectionDebugInitializer = { channel in
            connections.value.add(1, ordering: .relaxed)
            channel.closeFuture.whenComplete { _ in connections.value.subtract(1, ordering: .relaxed) }
            return channel.eventLoop.submit {
                let pipeline = channel.pipeline.syncOperations
                let http2 = try pipeline.handler(type: NIOHTTP2Handler.self)
                try pipeline.addHandler(FlushCoalescingHandler(), position: .before(http2))
                try pipeline.addHandler(HTTP2KeepaliveHandler(interval: pingInterval, timeout: pingTimeout), position: .after(http2))
            }
        }

        self.endpoint = endpoint
        self.settings = settings
        self.client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
        let loops = Array(eventLoopGroup.makeIterator())
        self.eventLoops = Array(loops.prefix(max(1, settings.maximumConnections)))
        self.baseURL = endpoint.baseURL
    }

    /// POSTs `body` to `path` with `headers`, within the request deadline.
    func post(path: String, headers: HTTPHeaders, body: ByteBuffer, logger: Logger) async -> APNsExchange {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: baseURL + path, method: .POST, headers: headers, body: .byteBuffer(body))
        } catch {
            return .failed("invalid request URL: \(error)")
        }
        let load = inFlight.add(1, ordering: .relaxed).newValue - 1
        defer { inFlight.subtract(1, ordering: .relaxed) }
        let loop = eventLoops[min(eventLoops.count - 1, load / max(1, settings.streamsPerConnection))]
        let delegate = ResponseAccumulator(request: request, maxBodySize: settings.maximumResponseBodySize)
        let task = client.execute(
            request: request, delegate: delegate, eventLoop: .delegateAndChannel(on: loop),
            deadline: .now() + .init(settings.requestTimeout), logger: logger)
        do {
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return .response(status: Int(response.status.code), apnsID: response.headers.first(name: "apns-id"), body: response.body)
        } catch {
            return Self.classify(error)
        }
    }

    /// Closes the connections; waits for them to go.
    func shutdown() async throws {
        try await client.shutdown()
    }

    /// For a transport that never carried a request (a configuration that failed half way).
    func shutdownNow() {
        try? client.syncShutdown()
    }

    /// A count shared with the connection initializer (which outlives no transport).
    final class ConnectionCount: Sendable {
        let value = Atomic<Int>(0)
    }

    static func classify(_ error: any Error) -> APNsExchange {
        if let closed = error as? NIOHTTP2Errors.StreamClosed, closed.errorCode == .refusedStream {
            return .unprocessed("stream refused (GOAWAY or REFUSED_STREAM)")
        }
        if let http2 = error as? NIOHTTP2Errors.StreamClosed {
            return .failed("stream reset: \(http2.errorCode)")
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return .failed("timeout")
            case .connectTimeout, .tlsHandshakeTimeout:
                // Not sent, but resending at once would hammer a gateway that is down: back off.
                return .failed("connect timeout")
            case .cancelled:
                return .unprocessed("request cancelled by a closing connection before it was sent")
            case .remoteConnectionClosed:
                return .failed("connection closed")
            default:
                return .failed(client.shortDescription)
            }
        }
        if let channel = error as? ChannelError, channel == .ioOnClosedChannel || channel == .alreadyClosed {
            // Handed to a connection that had just closed: never written.
            return .unprocessed("connection already closed")
        }
        if error is CancellationError {
            return .failed("cancelled")
        }
        return .failed(String(describing: error))
    }
}
