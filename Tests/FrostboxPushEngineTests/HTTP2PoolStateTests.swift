import NIOCore
import NIOHTTP2
import Testing

@testable import FrostboxPushEngine

@Suite("HTTP/2 connection pool decisions (no I/O)")
struct HTTP2PoolStateTests {
    typealias Action = HTTP2PoolState.Action
    static let second: Int64 = 1_000_000_000

    private func pool(
        connections: Int = 2, streams: Int = 2, timeout: Int64 = 10 * second, idle: Int64 = 60 * second, resends: Int = 3
    ) -> HTTP2PoolState {
        var limits = HTTP2PoolState.Limits()
        limits.maximumConnections = connections
        limits.streamsPerConnection = streams
        limits.requestTimeout = timeout
        limits.idleTimeout = idle
        limits.maximumResends = resends
        return HTTP2PoolState(limits: limits)
    }

    private func connects(_ actions: [Action]) -> [HTTP2ConnectionID] {
        actions.compactMap { if case .connect(let id) = $0 { id } else { nil } }
    }

    @Test("the first request opens a connection; nothing is written before the server's SETTINGS; then odd stream ids")
    func firstConnection() {
        var pool = pool()
        #expect(pool.submit(1, now: 0) == [.connect(1)])
        #expect(pool.submit(2, now: 0).isEmpty)
        let actions = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(actions == [.write(1, [.init(request: 1, stream: 1), .init(request: 2, stream: 3)])])
        #expect(completed(answer(&pool, 1, 3)) == [2: .response(status: 200, header: nil, body: nil)])
    }

    @Test("a second connection opens only when every open one is at its cap, one connect at a time, up to the maximum")
    func growsUnderLoad() {
        var pool = pool(connections: 2, streams: 2)
        _ = pool.submit(1, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(pool.submit(2, now: 0) == [.write(1, [.init(request: 2, stream: 3)])])
        #expect(pool.submit(3, now: 0) == [.connect(2)])
        #expect(pool.submit(4, now: 0).isEmpty)
        #expect(written(pool.settings(2, maxConcurrentStreams: 100, now: 0)) == [2: [3, 4]])
        // Both at their cap, and the maximum reached: the next one waits for a free stream.
        #expect(pool.submit(5, now: 0).isEmpty)
        #expect(pool.connectionCount == 2)
        #expect(written(answer(&pool, 1, 1)) == [1: [5]])
    }

    @Test("the server's stream limit, lowered mid-connection, holds back new streams until enough answers came")
    func serverLowersLimit() {
        var pool = pool(connections: 1, streams: 10)
        _ = pool.submit(1, now: 0)
        #expect(written(pool.settings(1, maxConcurrentStreams: 3, now: 0)) == [1: [1]])
        for id in 2...6 { _ = pool.submit(id, now: 0) }
        #expect(pool.inFlight == 3)
        #expect(pool.waiting == 3)
        #expect(pool.settings(1, maxConcurrentStreams: 1, now: 0).isEmpty)
        #expect(pool.limit(of: 1) == 1)
        #expect(written(answer(&pool, 1, 1)).isEmpty)
        #expect(written(answer(&pool, 1, 3)).isEmpty)
        #expect(written(answer(&pool, 1, 5)) == [1: [4]])
        #expect(written(pool.settings(1, maxConcurrentStreams: 100, now: 0)) == [1: [5, 6]])
    }

    @Test("GOAWAY: requests above the last stream id go first on a new connection; the rest get their answers; then it closes")
    func goAway() {
        var pool = pool(connections: 1, streams: 10)
        for id in 1...6 { _ = pool.submit(id, now: 0) }
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = pool.submit(7, now: 0)
        // Streams 1, 3, 5 processed; 7, 9, 11, 13 (requests 4...7) never seen.
        let actions = pool.goAway(1, lastStreamID: 5, now: 0)
        #expect(connects(actions) == [2])
        #expect(completed(actions).isEmpty)
        _ = pool.submit(8, now: 0)
        #expect(written(pool.settings(2, maxConcurrentStreams: 100, now: 0)) == [2: [4, 5, 6, 7, 8]])
        #expect(completed(answer(&pool, 1, 1)).keys.sorted() == [1])
        _ = answer(&pool, 1, 3)
        let last = answer(&pool, 1, 5)
        #expect(completed(last).keys.sorted() == [3])
        #expect(last.contains(.close(1)))
    }

    @Test("a request refused again and again is handed back as unprocessed after the resend limit")
    func resendLimit() {
        var pool = pool(connections: 1, streams: 10, resends: 2)
        _ = pool.submit(1, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(written(pool.reset(1, stream: 1, code: .refusedStream, now: 0)) == [1: [1]])
        #expect(written(pool.reset(1, stream: 3, code: .refusedStream, now: 0)) == [1: [1]])
        let last = pool.reset(1, stream: 5, code: .refusedStream, now: 0)
        guard case .unprocessed = completed(last)[1] else {
            Issue.record("expected unprocessed, got \(last)")
            return
        }
    }

    @Test("a lost connection fails its unanswered requests (they may have been processed); waiting ones go to a new one")
    func connectionLoss() {
        var pool = pool(connections: 1, streams: 2)
        for id in 1...3 { _ = pool.submit(id, now: 0) }
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = answer(&pool, 1, 1)
        #expect(pool.inFlight == 2)
        let actions = pool.closed(1, error: nil, now: 0, random: 0.5)
        #expect(completed(actions) == [2: .lost("connection closed"), 3: .lost("connection closed")])
        #expect(pool.reconnectNotBefore == nil)
        _ = pool.submit(4, now: 0)
        #expect(pool.connectionCount == 1)
        #expect(written(pool.settings(2, maxConcurrentStreams: 100, now: 0)) == [2: [4]])
    }

    @Test("failed connects back off 1 s doubling to 60 s with jitter; meanwhile requests fail at once; success resets it")
    func reconnectBackoff() {
        var pool = pool(connections: 1)
        #expect(pool.submit(1, now: 0) == [.connect(1)])
        let failed = pool.closed(1, error: "refused", now: 0, random: 0)
        #expect(completed(failed) == [1: .failed("connect failed: refused")])
        #expect(pool.reconnectNotBefore == Self.second / 2)
        #expect(completed(pool.submit(2, now: Self.second / 4)) == [2: .failed("connect failed: refused")])
        var now = Self.second / 2
        var expected: [Int64] = []
        var delays: [Int64] = []
        for attempt in 1...8 {
            #expect(connects(pool.submit(100 + attempt, now: now)) == [attempt + 1])
            _ = pool.closed(attempt + 1, error: "refused", now: now, random: 1)
            delays.append(pool.reconnectNotBefore! - now)
            expected.append(min(Self.second << attempt, 60 * Self.second))
            now = pool.reconnectNotBefore!
        }
        #expect(delays == expected)
        #expect(connects(pool.submit(200, now: now)) == [10])
        _ = pool.settings(10, maxConcurrentStreams: 100, now: now)
        #expect(pool.reconnectNotBefore == nil)
        _ = pool.closed(10, error: nil, now: now, random: 0)
        #expect(pool.reconnectNotBefore == nil)
    }

    @Test("deadlines: a waiting request and a sent one time out; the sent one's stream is reset")
    func deadlines() {
        var pool = pool(connections: 1, streams: 1, timeout: 10)
        _ = pool.submit(1, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = pool.submit(2, now: 5)
        #expect(pool.tick(now: 9).isEmpty)
        let first = pool.tick(now: 10)
        #expect(first.contains(.resetStream(1, 1)))
        #expect(completed(first)[1] == .failed("timeout"))
        #expect(written(first) == [1: [2]])
        let second = pool.tick(now: 15)
        #expect(completed(second) == [2: .failed("timeout")])
    }

    @Test("an idle connection closes after the idle timeout; a busy one does not")
    func idle() {
        var pool = pool(connections: 1, idle: 100)
        _ = pool.submit(1, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(pool.tick(now: 150).isEmpty)
        _ = pool.headers(1, stream: 1, status: 200, header: nil, endStream: true, now: 150)
        #expect(pool.tick(now: 249).isEmpty)
        #expect(pool.tick(now: 250) == [.close(1)])
        #expect(pool.tick(now: 300).isEmpty)
    }

    @Test("cancel and shutdown: a cancelled request is reset or dequeued; shutdown fails what waits and refuses more")
    func cancelAndShutdown() {
        var pool = pool(connections: 1, streams: 1)
        _ = pool.submit(1, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = pool.submit(2, now: 0)
        _ = pool.submit(3, now: 0)
        #expect(pool.cancel(2) == [.complete(2, .failed("cancelled"))])
        #expect(pool.cancel(1).first == .resetStream(1, 1))
        #expect(pool.inFlight == 0)
        let shutdown = pool.shutdown()
        #expect(shutdown.contains(.close(1)))
        #expect(pool.submit(4, now: 0) == [.complete(4, .failed("transport shut down"))])
    }
}
