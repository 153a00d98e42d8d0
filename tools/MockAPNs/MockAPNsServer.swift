import Foundation
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local stand-in for Apple's HTTP/2 provider API: TLS with a self-signed certificate,
/// HTTP/2 only, Apple's validation rules, status codes and `{"reason": …}` bodies, and
/// injectable faults. A push is recorded as delivered only once its 200 answer has been
/// written to the socket, so a connection reset never leaves a push both recorded and unanswered.
public final class MockAPNsServer: Sendable {
    /// The configuration it runs with.
    public let configuration: MockAPNsSettings
    /// The bound port.
    public let port: Int
    /// PEM file of the server certificate; clients trust it for `127.0.0.1` / `localhost`.
    public let certificatePath: String
    /// PEM file of the server's private key.
    public let privateKeyPath: String
    /// The certificate directory this server made itself (nil when the configuration named one).
    private let ownedDirectory: String?

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: MockAPNsState
    private let verifier: MockAPNsTokenVerifier
    private let stopped = Atomic<Bool>(false)

    /// `https://127.0.0.1:PORT` (or the configured host).
    public var endpoint: String { "\(configuration.host):\(port)" }

    /// Binds and starts serving.
    public static func start(
        _ configuration: MockAPNsSettings, logger: Logger = Logger(label: "mock-apns")
    ) async throws
        -> MockAPNsServer
    {
        try await MockAPNsServer(configuration: configuration, logger: logger)
    }

    private init(configuration: MockAPNsSettings, logger: Logger) async throws {
        self.configuration = configuration
        // A directory of its own when none is given, removed again by `stop()`.
        ownedDirectory =
            configuration.certificateDirectory == nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent("mock-apns-\(UUID().uuidString)").path : nil
        let directory = configuration.certificateDirectory ?? ownedDirectory!
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let issued = try MockAPNsCertificates.makeServerCertificate()
        certificatePath = directory + "/mock-apns.crt"
        privateKeyPath = directory + "/mock-apns.key"
        try issued.certificatePEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try issued.privateKeyPEM.write(toFile: privateKeyPath, atomically: true, encoding: .utf8)

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(issued.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(issued.privateKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]
        if !configuration.clientCertificates.isEmpty {
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates(configuration.clientCertificates.map(\.certificate))
        }
        let sslContext = try NIOSSLContext(configuration: tls)
        let state = try MockAPNsState(keepDeliveries: configuration.keepDeliveries, deliveriesPath: configuration.deliveriesPath)
        let verifier = MockAPNsTokenVerifier(configuration: configuration)
        let validator = MockAPNsValidator(configuration: configuration, verifier: verifier, state: state)
        self.state = state
        self.verifier = verifier

        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        self.group = group
        let settings: HTTP2Settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.maximumConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 8192),
        ]
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let connection = MockAPNsConnection(
                            id: state.connectionOpened(), configuration: configuration, validator: validator, state: state,
                            logger: logger)
                        let bound = NIOLoopBound(connection, eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
                        connectionConfiguration.initialSettings = settings
                        // Faults such as answering before the body make clients' late DATA frames
                        // stream errors here; the DoS guards must not turn them into closed connections.
                        connectionConfiguration.maximumConnectionGlitches = 1_000_000
                        // Late DATA on a stream reset after an early answer is ignored only while
                        // the stream is among the recently reset ones.
                        connectionConfiguration.maximumRecentlyResetStreams = 10_000
                        var streamConfiguration = NIOHTTP2Handler.StreamConfiguration()
                        streamConfiguration.streamErrorRateLimit.maximumCount = 1_000_000
                        streamConfiguration.streamResetFrameRateLimit.maximumCount = 1_000_000
                        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                            mode: .server, connectionConfiguration: connectionConfiguration,
                            streamConfiguration: streamConfiguration, streamDelegate: MockAPNsStreamDelegate(connection: bound)
                        ) { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try bound.value.streamStarted(stream)
                            }
                        }
                    }
                }
                .bind(host: configuration.host, port: configuration.port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        guard let port = channel.localAddress?.port else {
            throw MockAPNsError("bound to no port")
        }
        self.port = port
        logger.info("mock-apns listening", metadata: ["endpoint": "\(configuration.host):\(port)", "certificate": "\(certificatePath)"])
    }

    /// The deliveries accepted so far (answered 200 and written), in answer order.
    public func deliveries() async -> [MockAPNsDelivery] {
        await settle()
        return state.snapshot(providerTokens: verifier.distinctTokens).1
    }

    /// Counters so far.
    public func counters() async -> MockAPNsCounters {
        await settle()
        return state.snapshot(providerTokens: verifier.distinctTokens).0
    }

    /// Forgets the recorded deliveries (counters stay).
    public func clearDeliveries() { state.clearDeliveries() }

    /// Lets every event loop finish the work it has in hand, so that answers a client has
    /// already read are also recorded (the record is made right after the socket write).
    private func settle() async {
        // Once stopped, the loops are gone and a task sent to one would never run: what was
        // recorded is all there is.
        guard !stopped.load(ordering: .acquiring) else { return }
        for loop in group.makeIterator() {
            try? await loop.submit {}.get()
        }
    }

    /// Serves until the listening socket is closed (by `stop()` or a signal).
    public func run() async throws {
        try await channel.closeFuture.get()
    }

    /// Stops listening, closes connections, releases the threads.
    public func stop() async throws {
        stopped.store(true, ordering: .releasing)
        try? await channel.close()
        state.close()
        try await group.shutdownGracefully()
        if let ownedDirectory {
            try? FileManager.default.removeItem(atPath: ownedDirectory)
        }
    }
}

/// Counts a connection's open streams and closes a connection after its GOAWAY drained.
struct MockAPNsStreamDelegate: NIOHTTP2StreamDelegate {
    let connection: NIOLoopBound<MockAPNsConnection>

    func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
        connection.value.streamOpened()
    }

    func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
        connection.value.streamClosed(id, parent: channel)
    }
}

/// One client connection: its id, its authentication and its GOAWAY bookkeeping. Lives on
/// the connection's event loop.
final class MockAPNsConnection {
    let id: Int
    let configuration: MockAPNsSettings
    let validator: MockAPNsValidator
    let state: MockAPNsState
    let logger: Logger
    private var streamsStarted = 0
    /// Complete requests received on this connection.
    var requestsFinished = 0
    private var openStreams = 0
    private var lastAcceptedStream: HTTP2StreamID?
    /// Streams taken in (not refused) and not yet closed.
    private var acceptedOpen: Set<HTTP2StreamID> = []
    private var auth: MockAPNsValidator.ConnectionAuth?
    /// The stream limit was lowered (`lowerStreamLimit`): streams opened since are watched.
    var limitLowered = false
    /// Reading stopped (`stallAfterRequests`): nothing more is answered.
    var stalled = false

    init(id: Int, configuration: MockAPNsSettings, validator: MockAPNsValidator, state: MockAPNsState, logger: Logger) {
        self.id = id
        self.configuration = configuration
        self.validator = validator
        self.state = state
        self.logger = logger
    }

    func streamOpened() {
        openStreams += 1
        state.streamsOpen(openStreams)
        if limitLowered { state.streamsOpenAfterLimitChange(openStreams) }
    }

    func streamClosed(_ id: HTTP2StreamID, parent: any Channel) {
        openStreams = max(0, openStreams - 1)
        acceptedOpen.remove(id)
        if lastAcceptedStream != nil && acceptedOpen.isEmpty {
            // GOAWAY sent and every stream it let through has been answered. (Counted by id:
            // streams swift-nio-http2 refuses by itself after a GOAWAY close without opening.)
            parent.close(promise: nil)
        }
    }

    /// Sets up a new stream; after a GOAWAY, streams above its last stream id are refused.
    func streamStarted(_ stream: any Channel) throws {
        let streamID = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) ?? .rootStream
        if let last = lastAcceptedStream, streamID > last {
            // Opened before the client saw our GOAWAY: refuse it unprocessed, as RFC 9113 says.
            stream.writeAndFlush(HTTP2Frame.FramePayload.rstStream(.refusedStream), promise: nil)
            return
        }
        streamsStarted += 1
        acceptedOpen.insert(streamID)
        if streamsStarted == 1, let parent = stream.parent {
            // A connection window as large as a busy gateway's: swift-nio-http2 does not credit
            // back the DATA of streams it refused, and a client's 1,000 streams in flight must
            // not stall on that.
            let update = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: 16 * 1024 * 1024))
            parent.writeAndFlush(update, promise: nil)
        }
        try stream.pipeline.syncOperations.addHandler(MockAPNsStreamHandler(connection: self, streamID: streamID))
        if let limit = configuration.goAwayAfterRequests, streamsStarted == limit, let parent = stream.parent {
            lastAcceptedStream = streamID
            state.goAwaySent()
            Self.writeGoAway(lastStreamID: streamID, on: parent)
        }
    }

    /// Writes GOAWAY(NO_ERROR, `lastStreamID`) as raw bytes below the HTTP/2 handler, so that
    /// its state machine does not know it was sent. Sent through the handler, the GOAWAY would
    /// make it ignore the HEADERS of the client's streams above the cut that are already on
    /// the wire, and then take their DATA as frames on idle streams: a connection error after
    /// which it reads nothing more (no answer, no PING ack) and never closes — the stall the
    /// GOAWAY tests once worked around with a short ping timeout. Unaware, it opens those
    /// streams as usual and `streamStarted` refuses them (REFUSED_STREAM), as a gateway that
    /// sent GOAWAY would; the connection closes once the streams at or below the cut are answered.
    static func writeGoAway(lastStreamID: HTTP2StreamID, on parent: any Channel) {
        guard let context = try? parent.pipeline.syncOperations.context(handlerType: NIOHTTP2Handler.self) else { return }
        var frame = ByteBuffer()
        frame.writeInteger(UInt32(8) << 8 | 0x7)  // length 8 (24 bits), type GOAWAY (8 bits)
        frame.writeInteger(UInt8(0))  // flags
        frame.writeInteger(UInt32(0))  // stream 0
        frame.writeInteger(UInt32(Int32(lastStreamID)))
        frame.writeInteger(UInt32(0))  // NO_ERROR
        context.writeAndFlush(NIOAny(frame), promise: nil)
    }

    /// How this connection authenticated: a verified client certificate names its topics.
    func authentication(parent: (any Channel)?) -> MockAPNsValidator.ConnectionAuth {
        if let auth { return auth }
        var topics: Set<String>?
        if !configuration.clientCertificates.isEmpty, let parent,
            let certificate = try? parent.pipeline.syncOperations.nioSSL_peerCertificate()
        {
            topics = configuration.clientCertificates.first { $0.certificate == certificate }?.topics ?? []
        }
        let auth = MockAPNsValidator.ConnectionAuth(certificateTopics: topics)
        self.auth = auth
        return auth
    }
}
