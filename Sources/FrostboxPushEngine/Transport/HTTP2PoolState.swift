import NIOCore
import NIOHTTP2

/// The connections to one gateway and the requests waiting for them, without I/O: when to
/// open a connection (every open one at its stream limit, fewer than the maximum, not backing
/// off after a failed connect), which connection a request goes to, what to resend after a
/// GOAWAY or REFUSED_STREAM, what fails after a connection loss or a deadline, and when an
/// idle connection closes. Every input returns the actions the transport must carry out.
/// Times are monotonic nanoseconds, given by the caller.
///
/// Requests sent *alone* (the ones that were on a connection that was lost, see `APNsClient`)
/// never share a connection: they go on connections of their own lane, one request at a time
/// on each, up to `maximumAloneConnections` beside the shared ones. A request that makes the
/// gateway drop its connection then takes no other request down, and is known by its losses;
/// the shared connections carry everything else meanwhile, as if nothing happened.
struct HTTP2PoolState {
    private enum Phase {
        /// Connecting; no SETTINGS from the server yet.
        case connecting
        /// The server's SETTINGS arrived: streams may start.
        case ready
        /// Told to close; takes nothing new.
        case closing
    }

    /// A class, so that its book (a dictionary of the streams in flight) is changed in place,
    /// never copied on the way in and out of the connection table.
    private final class Connection {
        let lane: Lane
        var phase: Phase
        var book: HTTP2StreamBook
        var idleSince: Int64

        init(lane: Lane, phase: Phase, book: HTTP2StreamBook, idleSince: Int64) {
            self.lane = lane
            self.phase = phase
            self.book = book
            self.idleSince = idleSince
        }

        /// Open or opening, and not going away: counts against its lane's maximum.
        var usable: Bool { phase == .connecting || (phase == .ready && book.acceptsStreams) }
    }

    private struct Waiting {
        let request: HTTP2RequestID
        let deadline: Int64
    }

    let limits: Limits
    private var connections: [HTTP2ConnectionID: Connection] = [:]
    /// Connection ids in the order they opened: requests fill the first before the next.
    private var order: [HTTP2ConnectionID] = []
    private var queue: [Waiting] = []
    private var queueHead = 0
    /// Requests waiting to go alone, first in line first.
    private var aloneQueue: [Waiting] = []
    /// Requests that go alone, waiting or on a stream.
    private var alone: Set<HTTP2RequestID> = []
    /// Requests sent again after a refusal, and how often.
    private var resends: [HTTP2RequestID: Int] = [:]
    private var nextConnection: HTTP2ConnectionID = 1
    private var failedConnects = 0
    private var backoffUntil: Int64?
    private var lastConnectError: String?
    private var shutDown = false

    init(limits: Limits) {
        self.limits = limits
    }

    /// Connections open or opening, draining ones included, of both lanes.
    var connectionCount: Int { connections.count }

    /// Connections of the lane of requests sent alone, open or opening.
    var aloneConnectionCount: Int { connections.values.count { $0.lane == .alone } }

    /// Requests waiting for a stream.
    var waiting: Int { queue.count - queueHead + aloneQueue.count }

    /// Requests on streams now, over all connections.
    var inFlight: Int { connections.values.reduce(0) { $0 + $1.book.inFlight } }

    /// The stream limit of connection `id` now (for tests and metrics).
    func limit(of id: HTTP2ConnectionID) -> Int? { connections[id]?.book.limit }

    /// When the next reconnect may start, if backing off.
    var reconnectNotBefore: Int64? { backoffUntil }

    // MARK: Inputs

    /// A request to send, due by `now + requestTimeout`; `alone`: on a connection that carries
    /// nothing else until it is answered.
    mutating func submit(_ request: HTTP2RequestID, alone: Bool = false, now: Int64) -> [Action] {
        submit([(request, alone)], now: now)
    }

    /// Requests to send, in order, each due by `now + requestTimeout`: queued together, then
    /// dealt to connections at once (one write and one flush per connection for all of them).
    mutating func submit(_ requests: [(id: HTTP2RequestID, alone: Bool)], now: Int64) -> [Action] {
        if shutDown { return requests.map { .complete($0.id, .failed("transport shut down")) } }
        let deadline = now + limits.requestTimeout
        for (request, alone) in requests {
            let waiting = Waiting(request: request, deadline: deadline)
            if alone {
                self.alone.insert(request)
                aloneQueue.append(waiting)
            } else {
                queue.append(waiting)
            }
        }
        return dispatch(now: now)
    }

    /// The caller of `request` gave up.
    mutating func cancel(_ request: HTTP2RequestID) -> [Action] {
        if let index = queue[queueHead...].firstIndex(where: { $0.request == request }) {
            queue.remove(at: index)
            return [.complete(request, .failed("cancelled"))]
        }
        if let index = aloneQueue.firstIndex(where: { $0.request == request }) {
            aloneQueue.remove(at: index)
            forget(request)
            return [.complete(request, .failed("cancelled"))]
        }
        for id in order {
            if let stream = connections[id]?.book.cancel(request) {
                forget(request)
                return [.resetStream(id, stream), .complete(request, .failed("cancelled"))]
            }
        }
        return []
    }

    /// The server's SETTINGS frame on `id`: the first makes the connection ready.
    mutating func settings(_ id: HTTP2ConnectionID, maxConcurrentStreams: Int?, now: Int64) -> [Action] {
        guard let connection = connections[id] else { return [] }
        connection.book.settings(maxConcurrentStreams: maxConcurrentStreams)
        if connection.phase == .connecting {
            connection.phase = .ready
            connection.idleSince = now
            failedConnects = 0
            backoffUntil = nil
            lastConnectError = nil
        }
        return dispatch(now: now)
    }

    /// A HEADERS frame of an answer.
    mutating func headers(_ id: HTTP2ConnectionID, stream: Int32, status: Int?, header: String?, endStream: Bool, now: Int64) -> [Action] {
        guard let event = connections[id]?.book.headers(stream: stream, status: status, header: header, endStream: endStream) else {
            return []
        }
        return handle(event, on: id, now: now)
    }

    /// A DATA frame of an answer.
    mutating func data(_ id: HTTP2ConnectionID, stream: Int32, bytes: ByteBuffer, endStream: Bool, now: Int64) -> [Action] {
        guard let event = connections[id]?.book.data(stream: stream, bytes: bytes, endStream: endStream) else { return [] }
        return handle(event, on: id, now: now)
    }

    /// RST_STREAM.
    mutating func reset(_ id: HTTP2ConnectionID, stream: Int32, code: HTTP2ErrorCode, now: Int64) -> [Action] {
        guard let event = connections[id]?.book.reset(stream: stream, code: code) else { return [] }
        return handle(event, on: id, now: now)
    }

    /// GOAWAY: the requests above `lastStreamID` go to another (or a new) connection first in
    /// line; the rest wait for their answers; the connection closes once they have them.
    mutating func goAway(_ id: HTTP2ConnectionID, lastStreamID: Int32, now: Int64) -> [Action] {
        guard let connection = connections[id] else { return [] }
        let cut = connection.book.goAway(lastStreamID: lastStreamID)
        var actions = requeueFirst(cut)
        actions += closeIfDrained(id)
        actions += dispatch(now: now)
        return actions
    }

    /// Connection `id` closed (or never opened: `error` says why). Requests on it without an
    /// answer are lost ("connection closed") — they may have been processed, and may be what
    /// made the gateway close it; a connection that closed before the server's SETTINGS counts
    /// as a failed connect and starts the backoff.
    mutating func closed(_ id: HTTP2ConnectionID, error: String?, now: Int64, random: Double) -> [Action] {
        guard let connection = connections.removeValue(forKey: id) else { return [] }
        order.removeAll { $0 == id }
        var actions: [Action] = connection.book.closed().map { request in
            forget(request)
            return .complete(request, .lost("connection closed"))
        }
        if connection.phase == .connecting {
            failedConnects += 1
            let exponent = min(failedConnects - 1, 30)
            let base = min(limits.initialBackoff << exponent, limits.maximumBackoff)
            let delay = base / 2 + Int64(Double(base / 2) * min(max(random, 0), 1))
            backoffUntil = now + delay
            lastConnectError = error ?? "connection closed before the server's settings"
        }
        actions += dispatch(now: now)
        return actions
    }

    /// Deadlines and idle connections at `now`.
    mutating func tick(now: Int64) -> [Action] {
        var actions: [Action] = []
        if queueHead < queue.count, queue[queueHead...].contains(where: { $0.deadline <= now }) {
            var kept: [Waiting] = []
            for waiting in queue[queueHead...] {
                if waiting.deadline <= now {
                    forget(waiting.request)
                    actions.append(.complete(waiting.request, .failed("timeout")))
                } else {
                    kept.append(waiting)
                }
            }
            queue = kept
            queueHead = 0
        }
        for waiting in aloneQueue where waiting.deadline <= now {
            forget(waiting.request)
            actions.append(.complete(waiting.request, .failed("timeout")))
        }
        aloneQueue.removeAll { $0.deadline <= now }
        for id in order {
            guard let connection = connections[id] else { continue }
            let expired = connection.book.expire(now: now)
            for item in expired {
                forget(item.request)
                actions.append(.resetStream(id, item.stream))
                actions.append(.complete(item.request, .failed("timeout")))
            }
            if !expired.isEmpty && connection.book.inFlight == 0 { connection.idleSince = now }
            if connection.phase == .ready, connection.book.inFlight == 0, now - connection.idleSince >= limits.idleTimeout {
                actions.append(close(id))
            }
            actions += closeIfDrained(id)
        }
        actions += dispatch(now: now)
        return actions
    }

    /// Fails everything waiting and closes every connection; later submits fail at once.
    mutating func shutdown() -> [Action] {
        shutDown = true
        var actions: [Action] = (queue[queueHead...] + aloneQueue).map { .complete($0.request, .failed("transport shut down")) }
        queue.removeAll()
        queueHead = 0
        aloneQueue.removeAll()
        alone.removeAll()
        for id in order where connections[id]?.phase != .closing { actions.append(close(id)) }
        return actions
    }

    // MARK: Decisions

    private mutating func handle(_ event: HTTP2StreamBook.Event, on id: HTTP2ConnectionID, now: Int64) -> [Action] {
        var actions: [Action]
        switch event {
        case .answered(let request, let status, let header, let body):
            forget(request)
            actions = [.complete(request, .response(status: status, header: header, body: body))]
        case .failed(let request, let reason):
            forget(request)
            actions = [.complete(request, .failed(reason))]
        case .refused(let request, let deadline):
            actions = requeueFirst([(request, deadline)])
        }
        if let connection = connections[id], connection.book.inFlight == 0 {
            connection.idleSince = now
            actions += closeIfDrained(id)
        }
        actions += dispatch(now: now)
        return actions
    }

    /// Done with `request`: no resend count, not alone.
    private mutating func forget(_ request: HTTP2RequestID) {
        resends[request] = nil
        alone.remove(request)
    }

    /// Marks `id` closing and says so.
    private mutating func close(_ id: HTTP2ConnectionID) -> Action {
        connections[id]?.phase = .closing
        return .close(id)
    }

    /// A connection that takes no new streams (GOAWAY, ids used up) closes once its last answer came.
    private mutating func closeIfDrained(_ id: HTTP2ConnectionID) -> [Action] {
        guard let connection = connections[id], connection.phase == .ready, !connection.book.acceptsStreams,
            connection.book.inFlight == 0
        else { return [] }
        return [close(id)]
    }

    /// Puts refused requests back at the head of their queue, keeping their deadlines; one
    /// refused too often is handed back as unprocessed.
    private mutating func requeueFirst(_ requests: [(request: HTTP2RequestID, deadline: Int64)]) -> [Action] {
        var actions: [Action] = []
        var front: [Waiting] = []
        var aloneFront: [Waiting] = []
        for (request, deadline) in requests {
            let count = (resends[request] ?? 0) + 1
            if count > limits.maximumResends {
                forget(request)
                actions.append(.complete(request, .unprocessed("refused \(count - 1) times (GOAWAY or REFUSED_STREAM)")))
            } else {
                resends[request] = count
                let waiting = Waiting(request: request, deadline: deadline)
                if alone.contains(request) { aloneFront.append(waiting) } else { front.append(waiting) }
            }
        }
        aloneQueue.insert(contentsOf: aloneFront, at: 0)
        if !front.isEmpty {
            queue.replaceSubrange(queue.startIndex..<queueHead, with: [])
            queueHead = 0
            queue.insert(contentsOf: front, at: 0)
        }
        return actions
    }

    /// Gives waiting requests streams — shared ones on shared connections, each request sent
    /// alone on an idle connection of the alone lane — and opens a connection in a lane whose
    /// requests are left over.
    private mutating func dispatch(now: Int64) -> [Action] {
        guard !shutDown else { return [] }
        var actions: [Action] = []
        for id in order where queueHead < queue.count {
            guard let connection = connections[id], connection.lane == .shared, connection.phase == .ready else { continue }
            var started: [Started] = []
            while queueHead < queue.count, connection.book.available > 0 {
                let waiting = queue[queueHead]
                guard let stream = connection.book.start(waiting.request, deadline: waiting.deadline) else { break }
                queueHead += 1
                started.append(Started(request: waiting.request, stream: stream))
            }
            if !started.isEmpty { actions.append(.write(id, started)) }
        }
        if queueHead > 1024 && queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        if queueHead > 0 && queueHead >= queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        for id in order where !aloneQueue.isEmpty {
            guard let connection = connections[id], connection.lane == .alone, connection.phase == .ready, connection.book.inFlight == 0,
                let stream = connection.book.start(aloneQueue[0].request, deadline: aloneQueue[0].deadline)
            else { continue }
            actions.append(.write(id, [Started(request: aloneQueue.removeFirst().request, stream: stream)]))
        }
        actions += connectIfLeftOver(.shared, waiting: queueHead < queue.count, now: now)
        actions += connectIfLeftOver(.alone, waiting: !aloneQueue.isEmpty, now: now)
        return actions
    }

    /// Requests of `lane` are left over (`waiting`): every usable connection of the lane is
    /// busy. Opens one more unless one is opening, the lane is at its maximum, or connects
    /// are backing off — then, if no connection of the lane is left to carry them, they fail
    /// now rather than at their deadline.
    private mutating func connectIfLeftOver(_ lane: Lane, waiting: Bool, now: Int64) -> [Action] {
        guard waiting else { return [] }
        // Counted without building a list: this runs on every answer while requests wait.
        var usable = 0
        var opening = false
        for connection in connections.values where connection.lane == lane {
            if connection.usable { usable += 1 }
            if connection.phase == .connecting { opening = true }
        }
        if let backoffUntil, now < backoffUntil {
            guard usable == 0 else { return [] }
            let reason = "connect failed: \(lastConnectError ?? "unknown")"
            let failing: [Waiting]
            switch lane {
            case .shared:
                failing = Array(queue[queueHead...])
                queue.removeAll()
                queueHead = 0
            case .alone:
                failing = aloneQueue
                aloneQueue.removeAll()
            }
            return failing.map { waiting in
                forget(waiting.request)
                return .complete(waiting.request, .failed(reason))
            }
        }
        let maximum = lane == .shared ? limits.maximumConnections : limits.maximumAloneConnections
        guard !opening, usable < max(1, maximum) else { return [] }
        let id = nextConnection
        nextConnection += 1
        connections[id] = Connection(
            lane: lane, phase: .connecting,
            book: HTTP2StreamBook(cap: lane == .alone ? 1 : limits.streamsPerConnection, maximumBodySize: limits.maximumResponseBodySize),
            idleSince: now)
        order.append(id)
        return [.connect(id)]
    }
}
