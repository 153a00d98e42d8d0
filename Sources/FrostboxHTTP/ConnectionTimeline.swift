/// The life of one HTTP/1 connection as far as the server's patience goes: how long it may
/// take to send a request head, how long it may idle between requests, when it is closed after
/// an answer, and when a request is refused at its head for a body too large. No I/O and no
/// clock: `ConnectionGuardHandler` passes the time in and carries out the actions.
public struct ConnectionTimeline: Sendable {
    /// A point on a monotonic clock, as the time since its (arbitrary) origin.
    public typealias Instant = Duration

    /// What the handler does next about the connection.
    public enum Action: Sendable, Equatable {
        case none
        /// (Re)arm the one timer for `at`; when it fires, call `timerFired`.
        case schedule(at: Instant)
        /// Stop sending (the answers are out), keep discarding what arrives, and close for good
        /// at `closeAt` unless the client closes first. Closing with unread data would reset the
        /// connection and could lose the answer before the client reads it.
        case finish(closeAt: Instant)
        /// Close now.
        case close
    }

    /// What to do with a request head the decoder has read.
    public enum HeadDecision: Sendable, Equatable {
        /// Pass it on to the application.
        case forward
        /// Drop it (the connection is closing).
        case discard
        /// Drop it and answer 413 now; then `finish`.
        case rejectNow
        /// Drop it; answer 413 once the earlier requests are answered (`responseEnded` says so).
        case rejectLater
    }

    /// How long a closing connection keeps discarding what arrives before it is closed.
    public static let linger: Duration = .seconds(2)

    public let limits: ConnectionLimits
    /// The one timer's deadline, when waiting for a request.
    public private(set) var deadline: Instant?
    /// Requests forwarded whose answer has not ended.
    private var unanswered = 0
    /// No request is being read or answered: waiting for the next one.
    private var waiting = true
    /// Bytes of the next request have arrived (its head has begun).
    private var headBegun = false
    /// No further request is taken: close once the forwarded ones are answered.
    private var closing = false
    /// A 413 waits for the earlier answers.
    private var rejectionPending = false
    /// Inbound parts are dropped (after a refused head, a 413, or the last request).
    public private(set) var discardsInbound = false
    /// The body being read belongs to the last request this connection takes.
    private var readingLastRequest = false

    public init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// The connection has opened: its first request head must be complete within the header timeout.
    public mutating func opened(at now: Instant) -> Action {
        headBegun = true
        return arm(limits.headerTimeout.map { now + $0 })
    }

    /// Bytes have arrived. The first byte of a request after a kept-alive wait starts its
    /// header timeout.
    public mutating func bytesArrived(at now: Instant) -> Action {
        guard waiting, !headBegun, !closing else { return .none }
        headBegun = true
        return arm(limits.headerTimeout.map { now + $0 })
    }

    /// The decoder has read a request head: HTTP/1.0 without keep-alive and `Connection:
    /// close` make it the last one; a declared body over the limit is refused unread.
    public mutating func headRead(keepAlive: Bool, declaredBodyLength: Int?) -> HeadDecision {
        guard !discardsInbound, !closing else { return .discard }
        waiting = false
        headBegun = false
        deadline = nil
        if let length = declaredBodyLength, length > limits.maximumBodySize {
            closing = true
            discardsInbound = true
            guard unanswered == 0 else {
                rejectionPending = true
                return .rejectLater
            }
            return .rejectNow
        }
        unanswered += 1
        if !keepAlive {
            closing = true
            readingLastRequest = true
        }
        return .forward
    }

    /// The decoder has read the end of a request: what follows the last request is dropped.
    public mutating func endRead() {
        if readingLastRequest {
            readingLastRequest = false
            discardsInbound = true
        }
    }

    /// An answer's head is being written; true when it should say `Connection: close`. A 413
    /// closes the connection: the rest of the body is not read.
    public mutating func responseHeadWritten(status: Int) -> Bool {
        if status == 413 {
            closing = true
            discardsInbound = true
        }
        return closing && unanswered <= 1
    }

    /// An answer has ended. With none left: the pending 413 is due (`rejectNow`-like: the
    /// handler writes it and finishes), a closing connection finishes, and a kept-alive one
    /// waits for its next request.
    public mutating func responseEnded(at now: Instant) -> (action: Action, rejectNow: Bool) {
        unanswered = max(0, unanswered - 1)
        guard unanswered == 0 else { return (.none, false) }
        if rejectionPending {
            rejectionPending = false
            return (.none, true)
        }
        if closing { return (finish(at: now), false) }
        waiting = true
        headBegun = false
        return (arm(limits.keepAliveTimeout.map { now + $0 }), false)
    }

    /// The 413 written by the handler is out: the connection finishes.
    public mutating func rejectionWritten(at now: Instant) -> Action {
        finish(at: now)
    }

    /// The timer has fired: past the deadline the connection is closed.
    public mutating func timerFired(at now: Instant) -> Action {
        guard let deadline else { return .none }
        guard now >= deadline else { return .schedule(at: deadline) }
        self.deadline = nil
        return .close
    }

    private mutating func finish(at now: Instant) -> Action {
        deadline = now + Self.linger
        return .finish(closeAt: now + Self.linger)
    }

    private mutating func arm(_ deadline: Instant?) -> Action {
        self.deadline = deadline
        return deadline.map { .schedule(at: $0) } ?? .none
    }
}
