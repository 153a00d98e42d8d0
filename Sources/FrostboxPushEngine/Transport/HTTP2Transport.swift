import FrostboxCore
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// The HTTP/2 connections to one gateway (one endpoint, one TLS identity), written as plain
/// frames on `NIOHTTP2Handler`: each request is a HEADERS and a DATA frame on a stream id this
/// transport allocates, each answer is matched by its stream id. Connections, streams,
/// GOAWAY, resets, deadlines and the reconnect backoff are decided by `HTTP2PoolState`; this
/// class carries out its actions. Every connection and all the state live on one event loop;
/// callers hand requests over with one hop — one request (`post`, answered through a
/// continuation) or a whole batch (`send`, answered through one handler called on the loop) —
/// and `HTTP2Gateway` spreads a gateway's requests over one transport per event loop.
final class HTTP2Transport: @unchecked Sendable {
    // @unchecked: everything mutable below is touched only on `loop` (every entry point hops
    // there first, and every function that touches that state asserts it runs there, in
    // debug builds: `loop.assertInEventLoop()`); the counters readable from anywhere are
    // atomics, and the inbox of handed-over requests is a Mutex.

    /// The gateway.
    let endpoint: HTTP2Endpoint
    /// The loop every connection of this transport runs on.
    let loop: any EventLoop
    private let sslContext: NIOSSLContext
    private let settings: HTTP2ConnectionSettings
    /// The header of each answer that is kept, if any.
    let answerHeader: HTTP2AnswerHeader
    /// `:path` in HPACK's table when every request has the same (FCM's), never per device (APNs').
    private let pathIndexing: HPACKIndexing
    private let random: @Sendable () -> Double
    private let resolve: HTTP2AddressResolver?
    private let logger: Logger
    /// `:method`, `:scheme` and `:authority`: the same for every request, built once.
    private let staticHeaders: HPACKHeaders
    private var pool: HTTP2PoolState
    private var requests: [HTTP2RequestID: Pending] = [:]
    private var handlers: [HTTP2ConnectionID: HTTP2ConnectionHandler] = [:]
    private var closeWhenConnected: Set<HTTP2ConnectionID> = []
    private var timer: RepeatedTask?
    private var pendingActions: [HTTP2PoolState.Action] = []
    private var running = false
    private let nextRequest = Atomic<Int>(0)
    /// Requests handed over and not yet taken in by the loop.
    private let inbox = Mutex<[(HTTP2RequestID, Pending)]>([])
    private let connections = Atomic<Int>(0)
    private let streams = Atomic<Int>(0)
    private let outstanding = Atomic<Int>(0)

    private struct Pending {
        let headers: HPACKHeaders
        let body: ByteBuffer
        let alone: Bool
        let reply: Reply
    }

    /// Where an answer goes.
    private enum Reply {
        /// A caller of `post`, waiting.
        case waiting(CheckedContinuation<HTTP2Exchange, Never>)
        /// A batch's handler, with the request's index in the batch.
        case batch(HTTP2BatchReply, Int)
    }

    /// Answers to batches not yet handed over, by batch.
    private var answered: [ObjectIdentifier: (HTTP2BatchReply, [(Int, HTTP2Exchange)])] = [:]
    /// Frames of a socket read are being taken in: answers wait for the read's end.
    private var reading = false

    /// HTTP/2 connections to the gateway open now.
    var openConnections: Int { connections.load(ordering: .relaxed) }

    /// Requests on streams now (sent, not yet answered).
    var streamsInFlight: Int { streams.load(ordering: .relaxed) }

    /// Requests handed over and not yet answered (waiting or on a stream): its load.
    var unanswered: Int { outstanding.load(ordering: .relaxed) }

    /// - Parameter aloneConnections: most connections of the lane of requests sent alone.
    init(
        endpoint: HTTP2Endpoint, sslContext: NIOSSLContext, settings: HTTP2ConnectionSettings, aloneConnections: Int,
        maximumResends: Int = 10, answerHeader: HTTP2AnswerHeader = .none, indexPaths: Bool = false, eventLoop: any EventLoop,
        random: @escaping @Sendable () -> Double, resolve: HTTP2AddressResolver? = nil, logger: Logger
    ) {
        self.resolve = resolve
        self.sslContext = sslContext
        self.endpoint = endpoint
        self.settings = settings
        self.loop = eventLoop
        self.answerHeader = answerHeader
        self.pathIndexing = indexPaths ? .indexable : .nonIndexable
        self.random = random
        self.logger = logger
        staticHeaders = [":method": "POST", ":scheme": "https", ":authority": endpoint.authority]
        var limits = HTTP2PoolState.Limits()
        limits.maximumConnections = max(1, settings.maximumConnections)
        limits.maximumAloneConnections = max(1, aloneConnections)
        limits.streamsPerConnection = max(1, settings.streamsPerConnection)
        limits.requestTimeout = settings.requestTimeout.inNanoseconds
        limits.idleTimeout = settings.idleTimeout.inNanoseconds
        limits.maximumResponseBodySize = settings.maximumResponseBodySize
        limits.maximumResends = maximumResends
        limits.initialBackoff = settings.reconnectInitialBackoff.inNanoseconds
        limits.maximumBackoff = settings.reconnectMaximumBackoff.inNanoseconds
        pool = HTTP2PoolState(limits: limits)
    }

    /// Sends one request — `fields` are the regular header fields, in order, `authorization`
    /// the bearer token if any — and waits for its answer, the deadline or a failure. `alone`:
    /// on a connection that carries no other request meanwhile (see `HTTP2PoolState`).
    func post(path: String, fields: HPACKHeaders, authorization: String?, body: ByteBuffer, alone: Bool = false) async -> HTTP2Exchange {
        let complete = headers(path: path, fields: fields, authorization: authorization, body: body)
        let id = nextRequest.wrappingAdd(1, ordering: .relaxed).newValue
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                hand([(id, Pending(headers: complete, body: body, alone: alone, reply: .waiting(continuation)))])
            }
        } onCancel: {
            loop.execute {
                self.drainInbox()
                self.run(self.pool.cancel(id))
            }
        }
    }

    /// Sends the requests of `batch` in one hand-over, without waiting: `reply` gets each
    /// request's answer exactly once (with its index in `batch`), on this transport's loop, the
    /// answers of one burst of socket reads together — it must return quickly and not call
    /// back into the transport. Returns the requests' ids, for `cancel`.
    func send(_ batch: ArraySlice<HTTP2Outgoing>, reply: HTTP2BatchReply) -> [HTTP2RequestID] {
        guard !batch.isEmpty else { return [] }
        let first = nextRequest.wrappingAdd(batch.count, ordering: .relaxed).newValue - batch.count + 1
        var items: [(HTTP2RequestID, Pending)] = []
        items.reserveCapacity(batch.count)
        for (offset, index) in batch.indices.enumerated() {
            let request = batch[index]
            let headers = headers(path: request.path, fields: request.fields, authorization: request.authorization, body: request.body)
            items.append((first + offset, Pending(headers: headers, body: request.body, alone: request.alone, reply: .batch(reply, index))))
        }
        hand(items)
        return items.map(\.0)
    }

    /// Gives up the requests `ids` that have not started yet (they are answered `failed("cancelled")`).
    func cancel(_ ids: [HTTP2RequestID]) {
        guard !ids.isEmpty else { return }
        loop.execute {
            self.drainInbox()
            for id in ids { self.run(self.pool.cancel(id)) }
        }
    }

    private func headers(path: String, fields: HPACKHeaders, authorization: String?, body: ByteBuffer) -> HPACKHeaders {
        var headers = staticHeaders
        headers.reserveCapacity(staticHeaders.count + fields.count + 3)
        headers.add(name: ":path", value: path, indexing: pathIndexing)
        headers.add(contentsOf: fields)
        if let authorization { headers.add(name: "authorization", value: authorization) }
        headers.add(name: "content-length", value: String(body.readableBytes))
        return headers
    }

    /// Puts requests in the inbox; one hop for every request handed over before the loop gets to them.
    private func hand(_ items: [(HTTP2RequestID, Pending)]) {
        outstanding.add(items.count, ordering: .relaxed)
        let first = inbox.withLock { inbox in
            let wasEmpty = inbox.isEmpty
            inbox.append(contentsOf: items)
            return wasEmpty
        }
        if first { loop.execute { self.drainInbox() } }
    }

    /// Closes every connection and fails what waits; returns once the connections are closed
    /// and counted as closed (`openConnections` is 0).
    func shutdown() async {
        let closing: [EventLoopFuture<Void>]
        do {
            closing = try await loop.submit {
                self.timer?.cancel()
                self.timer = nil
                let futures = self.handlers.values.compactMap { $0.closeFuture }
                self.run(self.pool.shutdown())
                return futures
            }.get()
        } catch {
            return
        }
        for future in closing {
            try? await future.get()
        }
        // A channel's close completes its future and tells its handler on this loop; one more
        // turn of the loop, and every closed connection has been counted.
        try? await loop.submit {}.get()
    }

    // MARK: On the loop

    private func drainInbox() {
        loop.assertInEventLoop()
        let batch = inbox.withLock { inbox in
            defer { inbox.removeAll(keepingCapacity: true) }
            return inbox
        }
        guard !batch.isEmpty else { return }
        for (id, pending) in batch { requests[id] = pending }
        if timer == nil {
            let interval = Self.tickInterval(settings)
            timer = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in
                run(pool.tick(now: now()))
            }
        }
        run(pool.submit(batch.map { (id: $0.0, alone: $0.1.alone) }, now: now()))
    }

    private func now() -> Int64 { Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds) }

    /// Carries out the pool's actions, in order. Not re-entrant: an action can close a channel,
    /// whose close hands the pool new input at once; the actions that produces wait until the
    /// current ones are done, so that stream ids still reach each connection in rising order.
    private func run(_ actions: [HTTP2PoolState.Action]) {
        loop.assertInEventLoop()
        pendingActions.append(contentsOf: actions)
        guard !running else { return }
        running = true
        var index = 0
        while index < pendingActions.count {
            perform(pendingActions[index])
            index += 1
        }
        pendingActions.removeAll(keepingCapacity: true)
        running = false
        streams.store(pool.inFlight, ordering: .relaxed)
        if !reading { handOverAnswers() }
    }

    /// Gives each batch the answers gathered for it.
    private func handOverAnswers() {
        guard !answered.isEmpty else { return }
        let groups = answered.values
        answered.removeAll(keepingCapacity: true)
        for (reply, answers) in groups { reply.answer(answers) }
    }

    private func perform(_ action: HTTP2PoolState.Action) {
        switch action {
        case .connect(let id):
            connect(id)
        case .write(let id, let started):
            guard let handler = handlers[id] else {
                // Cannot happen: only a connection whose SETTINGS arrived gets streams.
                for item in started { complete(item.request, .failed("connection vanished")) }
                return
            }
            for item in started {
                guard let pending = requests[item.request] else { continue }
                handler.write(stream: item.stream, headers: pending.headers, body: pending.body)
            }
            handler.scheduleFlush()
            return
        case .resetStream(let id, let stream):
            handlers[id]?.reset(stream: stream)
        case .close(let id):
            if let handler = handlers[id] {
                handler.close()
            } else {
                closeWhenConnected.insert(id)
            }
        case .complete(let id, let exchange):
            complete(id, exchange)
        }
    }

    private func complete(_ id: HTTP2RequestID, _ exchange: HTTP2Exchange) {
        guard let pending = requests.removeValue(forKey: id) else { return }
        outstanding.subtract(1, ordering: .relaxed)
        switch pending.reply {
        case .waiting(let continuation): continuation.resume(returning: exchange)
        case .batch(let reply, let index): answered[ObjectIdentifier(reply), default: (reply, [])].1.append((index, exchange))
        }
    }

    private func connect(_ id: HTTP2ConnectionID) {
        let sslContext = self.sslContext
        let hostname = endpoint.isIPAddress ? nil : endpoint.host
        let keepaliveInterval = TimeAmount(settings.pingInterval)
        let keepaliveTimeout = TimeAmount(settings.pingTimeout)
        let connectTimeout = TimeAmount(settings.connectTimeout)
        let (connection, stream) = Self.http2Configuration
        let bootstrap = ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(connectTimeout)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: hostname))
                    try sync.addHandler(FlushCoalescingHandler())
                    try sync.addHandler(NIOHTTP2Handler(mode: .client, connectionConfiguration: connection, streamConfiguration: stream))
                    try sync.addHandler(HTTP2KeepaliveHandler(interval: keepaliveInterval, timeout: keepaliveTimeout))
                    let handler = HTTP2ConnectionHandler(id: id, transport: self, settingsTimeout: connectTimeout)
                    try sync.addHandler(handler)
                    handlers[id] = handler
                }
            }
        Self.connect(bootstrap, to: endpoint, resolve: resolve, on: loop).whenComplete { [self] result in
            switch result {
            case .success(let channel):
                if closeWhenConnected.remove(id) != nil { channel.close(promise: nil) }
            case .failure(let error):
                closeWhenConnected.remove(id)
                handlers[id] = nil
                logger.warning("push gateway connect failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
                run(pool.closed(id, error: "\(error)", now: now(), random: random()))
            }
        }
    }

    // MARK: From the connection handlers (on the loop)

    func connectionActive(_ id: HTTP2ConnectionID) {
        loop.assertInEventLoop()
        connections.add(1, ordering: .relaxed)
    }

    func connectionSettings(_ id: HTTP2ConnectionID, maxConcurrentStreams: Int?) {
        loop.assertInEventLoop()
        logger.debug(
            "push gateway settings", metadata: ["endpoint": "\(endpoint)", "connection": "\(id)", "max-streams": "\(maxConcurrentStreams ?? -1)"])
        run(pool.settings(id, maxConcurrentStreams: maxConcurrentStreams, now: now()))
    }

    func connectionHeaders(_ id: HTTP2ConnectionID, stream: Int32, status: Int?, header: String?, endStream: Bool) {
        loop.assertInEventLoop()
        reading = true
        run(pool.headers(id, stream: stream, status: status, header: header, endStream: endStream, now: now()))
    }

    func connectionData(_ id: HTTP2ConnectionID, stream: Int32, bytes: ByteBuffer, endStream: Bool) {
        loop.assertInEventLoop()
        reading = true
        run(pool.data(id, stream: stream, bytes: bytes, endStream: endStream, now: now()))
    }

    func connectionError(_ id: HTTP2ConnectionID, error: any Error) {
        loop.assertInEventLoop()
        logger.debug("push gateway connection error", metadata: ["connection": "\(id)", "error": "\(error)"])
    }

    /// The HEADERS of a request could not be written (the stream never reached the server).
    func connectionWriteFailed(_ id: HTTP2ConnectionID, stream: Int32, error: any Error) {
        loop.assertInEventLoop()
        logger.debug("push gateway request not written", metadata: ["connection": "\(id)", "stream": "\(stream)", "error": "\(error)"])
        run(pool.reset(id, stream: stream, code: .refusedStream, now: now()))
    }

    func connectionReset(_ id: HTTP2ConnectionID, stream: Int32, code: HTTP2ErrorCode) {
        loop.assertInEventLoop()
        reading = true
        run(pool.reset(id, stream: stream, code: code, now: now()))
    }

    func connectionGoAway(_ id: HTTP2ConnectionID, lastStreamID: Int32, code: HTTP2ErrorCode) {
        loop.assertInEventLoop()
        let actions = pool.goAway(id, lastStreamID: lastStreamID, now: now())
        logger.debug(
            "push gateway GOAWAY",
            metadata: [
                "endpoint": "\(endpoint)", "connection": "\(id)", "last-stream": "\(lastStreamID)", "code": "\(code)",
                "waiting-for-answers": "\(pool.inFlight)", "actions": "\(actions.count)",
            ])
        run(actions)
    }

    /// The end of a burst of socket reads on a connection: the answers it brought go out.
    func connectionReadComplete(_ id: HTTP2ConnectionID) {
        loop.assertInEventLoop()
        reading = false
        handOverAnswers()
    }

    func connectionClosed(_ id: HTTP2ConnectionID, wasActive: Bool, error: String?) {
        loop.assertInEventLoop()
        reading = false
        handlers[id] = nil
        closeWhenConnected.remove(id)
        if wasActive { connections.subtract(1, ordering: .relaxed) }
        let actions = pool.closed(id, error: error, now: now(), random: random())
        logger.debug(
            "push gateway connection closed",
            metadata: [
                "endpoint": "\(endpoint)", "connection": "\(id)", "error": "\(error ?? "-")",
                "unanswered": "\(actions.count { if case .complete = $0 { true } else { false } })",
            ])
        run(actions)
    }
}
