import NIOCore
import NIOHTTP2

/// The stream bookkeeping of one HTTP/2 connection to a gateway, without I/O: which client
/// stream ids are taken (odd, rising), how many streams may be open now — the smaller of the
/// configured cap and the server's `SETTINGS_MAX_CONCURRENT_STREAMS`, which may change at any
/// time — which request each open stream carries, and what an incoming frame means for it.
/// `HTTP2PoolState` owns one per connection; the channel handler only feeds it frames.
struct HTTP2StreamBook {
    /// What a frame did to a request.
    enum Event: Equatable {
        /// The gateway's complete answer.
        case answered(HTTP2RequestID, status: Int, header: String?, body: ByteBuffer?)
        /// Certainly not processed (REFUSED_STREAM, or above a GOAWAY's last stream id): send
        /// it again, elsewhere, without counting an attempt, by its original deadline.
        case refused(HTTP2RequestID, deadline: Int64)
        /// Reset without a complete answer: it may or may not have been processed.
        case failed(HTTP2RequestID, reason: String)
    }

    private struct Entry {
        let request: HTTP2RequestID
        let deadline: Int64
        var status: Int?
        var header: String?
        var body: ByteBuffer?
    }

    /// The largest stream id a client may use (2^31 - 1).
    static let lastUsableStreamID: Int32 = .max

    /// Streams this connection may have open, by configuration.
    let cap: Int
    /// Most response body bytes kept (more is dropped: push gateways' bodies are short).
    let maximumBodySize: Int
    /// The server's concurrent-stream limit; unlimited until it says otherwise.
    private(set) var serverLimit = Int.max
    /// The last stream id the server said it processes, once it sent GOAWAY.
    private(set) var goAwayLastStreamID: Int32?
    private var nextStreamID: Int32 = 1
    private var open: [Int32: Entry] = [:]

    init(cap: Int, maximumBodySize: Int = 16 * 1024) {
        self.cap = max(1, cap)
        self.maximumBodySize = maximumBodySize
    }

    /// Streams open now.
    var inFlight: Int { open.count }

    /// Streams allowed open at once now.
    var limit: Int { min(cap, serverLimit) }

    /// False after a GOAWAY or once the stream ids are used up: no new stream may start.
    var acceptsStreams: Bool { goAwayLastStreamID == nil && nextStreamID <= Self.lastUsableStreamID - 1 }

    /// How many more streams may start now.
    var available: Int { acceptsStreams ? max(0, limit - open.count) : 0 }

    /// The server announced its settings (`maxConcurrentStreams` nil: not among them).
    mutating func settings(maxConcurrentStreams: Int?) {
        if let maxConcurrentStreams { serverLimit = max(0, maxConcurrentStreams) }
    }

    /// Takes the next stream id for `request`; nil when no stream may start now.
    mutating func start(_ request: HTTP2RequestID, deadline: Int64) -> Int32? {
        guard available > 0 else { return nil }
        let id = nextStreamID
        nextStreamID += 2
        open[id] = Entry(request: request, deadline: deadline)
        return id
    }

    /// A HEADERS frame of the answer on `stream` (the first carries `:status`).
    mutating func headers(stream: Int32, status: Int?, header: String?, endStream: Bool) -> Event? {
        guard var entry = open[stream] else { return nil }
        if entry.status == nil {
            entry.status = status
            entry.header = header
        }
        if endStream { return finish(stream, entry) }
        open[stream] = entry
        return nil
    }

    /// A DATA frame of the answer on `stream`.
    mutating func data(stream: Int32, bytes: ByteBuffer, endStream: Bool) -> Event? {
        guard var entry = open[stream] else { return nil }
        var bytes = bytes
        let room = maximumBodySize - (entry.body?.readableBytes ?? 0)
        if room > 0, bytes.readableBytes > 0, var slice = bytes.readSlice(length: min(room, bytes.readableBytes)) {
            if entry.body == nil {
                entry.body = slice
            } else {
                entry.body!.writeBuffer(&slice)
            }
        }
        if endStream { return finish(stream, entry) }
        open[stream] = entry
        return nil
    }

    /// RST_STREAM on `stream`. An answer whose headers came before the reset is final (a
    /// server may answer before reading the body and then reset with NO_ERROR, RFC 9113 §8.1).
    mutating func reset(stream: Int32, code: HTTP2ErrorCode) -> Event? {
        guard let entry = open.removeValue(forKey: stream) else { return nil }
        if let status = entry.status, code == .noError {
            return .answered(entry.request, status: status, header: entry.header, body: entry.body)
        }
        if code == .refusedStream && entry.status == nil {
            return .refused(entry.request, deadline: entry.deadline)
        }
        return .failed(entry.request, reason: "stream reset: \(code)")
    }

    /// GOAWAY: no new stream starts here; the requests above `lastStreamID` were never seen
    /// by the server and are returned to be sent elsewhere, those at or below it keep waiting
    /// for their answers. A second GOAWAY may only lower the cut.
    mutating func goAway(lastStreamID: Int32) -> [(request: HTTP2RequestID, deadline: Int64)] {
        let cut = min(lastStreamID, goAwayLastStreamID ?? .max)
        goAwayLastStreamID = cut
        var refused: [(stream: Int32, request: HTTP2RequestID, deadline: Int64)] = []
        for (stream, entry) in open where stream > cut {
            refused.append((stream, entry.request, entry.deadline))
        }
        refused.sort { $0.stream < $1.stream }
        for item in refused { open[item.stream] = nil }
        return refused.map { (request: $0.request, deadline: $0.deadline) }
    }

    /// The connection is gone: every request still open is unanswered (may have been processed).
    mutating func closed() -> [HTTP2RequestID] {
        let unanswered = open.sorted { $0.key < $1.key }.map(\.value.request)
        open.removeAll()
        goAwayLastStreamID = goAwayLastStreamID ?? 0
        return unanswered
    }

    /// Streams whose requests are past their deadline at `now`, removed; the caller resets them.
    mutating func expire(now: Int64) -> [(stream: Int32, request: HTTP2RequestID)] {
        var expired: [(stream: Int32, request: HTTP2RequestID)] = []
        for (stream, entry) in open where entry.deadline <= now {
            expired.append((stream, entry.request))
        }
        for item in expired { open[item.stream] = nil }
        return expired.sorted { $0.stream < $1.stream }
    }

    /// Forgets `request` (its caller gave up); returns its stream, to be reset.
    mutating func cancel(_ request: HTTP2RequestID) -> Int32? {
        guard let stream = open.first(where: { $0.value.request == request })?.key else { return nil }
        open[stream] = nil
        return stream
    }

    private mutating func finish(_ stream: Int32, _ entry: Entry) -> Event {
        open[stream] = nil
        guard let status = entry.status else {
            return .failed(entry.request, reason: "answer without :status")
        }
        return .answered(entry.request, status: status, header: entry.header, body: entry.body)
    }
}

/// Identifies one request handed to a transport (one attempt of one push).
package typealias HTTP2RequestID = Int
