import NIOCore
import NIOHTTP2
import Testing

@testable import FrostboxPushEngine

@Suite("APNs stream bookkeeping of one connection (no I/O)")
struct APNsStreamBookTests {
    @Test("client stream ids are odd and rising; the limit is the smaller of the cap and the server's, as it changes")
    func idsAndLimits() {
        var book = HTTP2StreamBook(cap: 3)
        #expect(book.limit == 3)
        #expect(book.start(1, deadline: 100) == 1)
        #expect(book.start(2, deadline: 100) == 3)
        #expect(book.start(3, deadline: 100) == 5)
        #expect(book.start(4, deadline: 100) == nil)
        book.settings(maxConcurrentStreams: 1)
        #expect(book.limit == 1)
        #expect(book.available == 0)
        _ = book.headers(stream: 1, status: 200, header: nil, endStream: true)
        _ = book.headers(stream: 3, status: 200, header: nil, endStream: true)
        #expect(book.available == 0)
        _ = book.headers(stream: 5, status: 200, header: nil, endStream: true)
        #expect(book.available == 1)
        #expect(book.start(4, deadline: 100) == 7)
        book.settings(maxConcurrentStreams: 500)
        #expect(book.limit == 3)
        book.settings(maxConcurrentStreams: nil)
        #expect(book.limit == 3)
    }

    @Test("an answer is matched by stream id: headers alone, or headers then a body (capped)")
    func answers() {
        var book = HTTP2StreamBook(cap: 10, maximumBodySize: 8)
        let first = book.start(10, deadline: 0)!
        let second = book.start(20, deadline: 0)!
        #expect(book.headers(stream: second, status: 400, header: "b", endStream: false) == nil)
        #expect(
            book.headers(stream: first, status: 200, header: "a", endStream: true)
                == .answered(10, status: 200, header: "a", body: nil))
        #expect(book.data(stream: second, bytes: ByteBuffer(string: "{\"reason\""), endStream: false) == nil)
        #expect(
            book.data(stream: second, bytes: ByteBuffer(string: ":\"x\"}"), endStream: true)
                == .answered(20, status: 400, header: "b", body: ByteBuffer(string: "{\"reason")))
        #expect(book.inFlight == 0)
        #expect(book.headers(stream: first, status: 200, header: "a", endStream: true) == nil)
        #expect(book.data(stream: 99, bytes: ByteBuffer(), endStream: true) == nil)
    }

    @Test("RST_STREAM: NO_ERROR after the answer's headers is final; REFUSED_STREAM is a resend; others fail")
    func resets() {
        var book = HTTP2StreamBook(cap: 10)
        let answeredEarly = book.start(1, deadline: 7)!
        let refused = book.start(2, deadline: 8)!
        let broken = book.start(3, deadline: 9)!
        let noErrorWithoutAnswer = book.start(4, deadline: 9)!
        #expect(book.headers(stream: answeredEarly, status: 200, header: "x", endStream: false) == nil)
        #expect(book.reset(stream: answeredEarly, code: .noError) == .answered(1, status: 200, header: "x", body: nil))
        #expect(book.reset(stream: refused, code: .refusedStream) == .refused(2, deadline: 8))
        #expect(book.reset(stream: broken, code: .internalError) == .failed(3, reason: "stream reset: \(HTTP2ErrorCode.internalError)"))
        #expect(
            book.reset(stream: noErrorWithoutAnswer, code: .noError)
                == .failed(4, reason: "stream reset: \(HTTP2ErrorCode.noError)"))
        #expect(book.reset(stream: answeredEarly, code: .noError) == nil)
        #expect(book.inFlight == 0)
    }

    @Test("GOAWAY: streams above the last id come back to be resent, those at or below keep waiting for answers")
    func goAwayCut() {
        var book = HTTP2StreamBook(cap: 100)
        let streams = (0..<10).map { book.start($0, deadline: Int64($0)) }
        #expect(streams == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19])
        let cut = book.goAway(lastStreamID: 9)
        #expect(cut.map(\.request) == [5, 6, 7, 8, 9])
        #expect(cut.map(\.deadline) == [5, 6, 7, 8, 9])
        #expect(book.inFlight == 5)
        #expect(!book.acceptsStreams)
        #expect(book.available == 0)
        #expect(book.start(42, deadline: 0) == nil)
        #expect(book.headers(stream: 9, status: 200, header: nil, endStream: true) == .answered(4, status: 200, header: nil, body: nil))
        // A later GOAWAY may lower the cut, never raise it.
        #expect(book.goAway(lastStreamID: 19).isEmpty)
        #expect(book.goAway(lastStreamID: 3).map(\.request) == [2, 3])
        #expect(book.closed() == [0, 1])
    }

    @Test("deadlines: expired streams are removed and named; a cancelled request gives back its stream")
    func deadlinesAndCancel() {
        var book = HTTP2StreamBook(cap: 10)
        _ = book.start(1, deadline: 100)
        _ = book.start(2, deadline: 200)
        _ = book.start(3, deadline: 300)
        #expect(book.expire(now: 99).isEmpty)
        #expect(book.expire(now: 200).map(\.request) == [1, 2])
        #expect(book.cancel(3) == 5)
        #expect(book.cancel(3) == nil)
        #expect(book.inFlight == 0)
    }
}
