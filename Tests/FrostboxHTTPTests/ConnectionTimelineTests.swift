import FrostboxHTTP
import Testing

/// `ConnectionTimeline` behind a reference: `#expect` cannot call a value's mutating methods.
final class TimelineDriver {
    typealias Instant = ConnectionTimeline.Instant
    var state: ConnectionTimeline
    init(_ state: ConnectionTimeline) { self.state = state }
    func opened(at now: Instant) -> ConnectionTimeline.Action { state.opened(at: now) }
    func bytesArrived(at now: Instant) -> ConnectionTimeline.Action { state.bytesArrived(at: now) }
    func headRead(keepAlive: Bool, declaredBodyLength: Int?) -> ConnectionTimeline.HeadDecision {
        state.headRead(keepAlive: keepAlive, declaredBodyLength: declaredBodyLength)
    }
    func endRead() { state.endRead() }
    func responseHeadWritten(status: Int) -> Bool { state.responseHeadWritten(status: status) }
    func responseEnded(at now: Instant) -> (action: ConnectionTimeline.Action, rejectNow: Bool) { state.responseEnded(at: now) }
    func rejectionWritten(at now: Instant) -> ConnectionTimeline.Action { state.rejectionWritten(at: now) }
    func timerFired(at now: Instant) -> ConnectionTimeline.Action { state.timerFired(at: now) }
    var discardsInbound: Bool { state.discardsInbound }
}

@Suite("Connection timeline")
struct ConnectionTimelineTests {
    static let limits = ConnectionLimits(headerTimeout: .seconds(10), keepAliveTimeout: .seconds(60), maximumBodySize: 1_000)

    func at(_ seconds: Int) -> ConnectionTimeline.Instant { .seconds(seconds) }

    @Test("a connection that never completes its first head is closed at the header timeout")
    func slowFirstHead() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        #expect(timeline.opened(at: at(100)) == .schedule(at: at(110)))
        // Trickled bytes do not extend the first head's deadline.
        #expect(timeline.bytesArrived(at: at(105)) == .none)
        #expect(timeline.timerFired(at: at(109)) == .schedule(at: at(110)))
        #expect(timeline.timerFired(at: at(110)) == .close)
    }

    @Test("a kept-alive connection idles up to the idle timeout, then its next head has the header timeout")
    func keepAliveThenHead() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: nil) == .forward)
        #expect(timeline.timerFired(at: at(50)) == .none)
        timeline.endRead()
        #expect(timeline.responseHeadWritten(status: 200) == false)
        #expect(timeline.responseEnded(at: at(1)) == (.schedule(at: at(61)), false))
        #expect(timeline.bytesArrived(at: at(30)) == .schedule(at: at(40)))
        // More bytes of the same head change nothing.
        #expect(timeline.bytesArrived(at: at(35)) == .none)
        #expect(timeline.timerFired(at: at(40)) == .close)
    }

    @Test("an idle kept-alive connection is closed at the idle timeout")
    func idleKeepAlive() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        _ = timeline.headRead(keepAlive: true, declaredBodyLength: 10)
        timeline.endRead()
        _ = timeline.responseHeadWritten(status: 204)
        _ = timeline.responseEnded(at: at(2))
        #expect(timeline.timerFired(at: at(62)) == .close)
    }

    @Test("no timeouts configured: nothing is scheduled")
    func noTimeouts() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: ConnectionLimits(headerTimeout: nil, keepAliveTimeout: nil)))
        #expect(timeline.opened(at: at(0)) == .none)
        _ = timeline.headRead(keepAlive: true, declaredBodyLength: nil)
        #expect(timeline.responseEnded(at: at(1)) == (.none, false))
        #expect(timeline.timerFired(at: at(1_000_000)) == .none)
    }

    @Test("HTTP/1.0 without keep-alive or Connection: close: the answer says close, then the connection finishes")
    func closeAfterAnswer() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        #expect(timeline.headRead(keepAlive: false, declaredBodyLength: nil) == .forward)
        #expect(timeline.discardsInbound == false)
        timeline.endRead()
        // Whatever follows the last request is dropped.
        #expect(timeline.discardsInbound)
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: nil) == .discard)
        #expect(timeline.responseHeadWritten(status: 200))
        #expect(timeline.responseEnded(at: at(3)) == (.finish(closeAt: at(3) + ConnectionTimeline.linger), false))
        #expect(timeline.timerFired(at: at(3) + ConnectionTimeline.linger) == .close)
    }

    @Test("a declared body over the limit is refused at its head, unread")
    func oversizedBody() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: 1_000) == .forward)
        timeline.endRead()
        _ = timeline.responseHeadWritten(status: 201)
        _ = timeline.responseEnded(at: at(1))
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: 1_001) == .rejectNow)
        #expect(timeline.discardsInbound)
        #expect(timeline.rejectionWritten(at: at(2)) == .finish(closeAt: at(2) + ConnectionTimeline.linger))
    }

    @Test("an oversized head pipelined behind an unanswered request is refused once that one is answered")
    func oversizedBehindPipelined() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: nil) == .forward)
        timeline.endRead()
        #expect(timeline.headRead(keepAlive: true, declaredBodyLength: 5_000_000) == .rejectLater)
        #expect(timeline.responseHeadWritten(status: 200))
        #expect(timeline.responseEnded(at: at(1)) == (.none, true))
    }

    @Test("an answer of 413 (a body found too long while read) closes the connection instead of reading on")
    func answered413() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        _ = timeline.headRead(keepAlive: true, declaredBodyLength: nil)
        #expect(timeline.responseHeadWritten(status: 413))
        #expect(timeline.discardsInbound)
        #expect(timeline.responseEnded(at: at(1)) == (.finish(closeAt: at(1) + ConnectionTimeline.linger), false))
    }

    @Test("pipelined requests are all answered before a kept-alive wait starts")
    func pipelined() {
        let timeline = TimelineDriver(ConnectionTimeline(limits: Self.limits))
        _ = timeline.opened(at: at(0))
        _ = timeline.headRead(keepAlive: true, declaredBodyLength: nil)
        timeline.endRead()
        _ = timeline.headRead(keepAlive: true, declaredBodyLength: nil)
        timeline.endRead()
        _ = timeline.responseHeadWritten(status: 200)
        #expect(timeline.responseEnded(at: at(1)) == (.none, false))
        _ = timeline.responseHeadWritten(status: 200)
        #expect(timeline.responseEnded(at: at(2)) == (.schedule(at: at(62)), false))
    }
}
