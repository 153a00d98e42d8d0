import Testing

@testable import FrostboxPushEngine

/// The pool's side of isolating a poison push: requests sent alone get connections of their
/// own lane, and what is lost there is lost alone.
@Suite("HTTP/2 pool: requests sent alone")
struct HTTP2IsolationTests {
    typealias Action = HTTP2PoolState.Action

    private func pool(connections: Int, streams: Int, alone: Int = 4) -> HTTP2PoolState {
        var limits = HTTP2PoolState.Limits()
        limits.maximumConnections = connections
        limits.maximumAloneConnections = alone
        limits.streamsPerConnection = streams
        return HTTP2PoolState(limits: limits)
    }

    @Test("a request sent alone gets a connection of its own lane; shared requests go on the shared connection meanwhile, none waits for the other")
    func aloneBesideShared() {
        var pool = pool(connections: 1, streams: 4, alone: 1)
        _ = pool.submit(1, now: 0)
        _ = pool.submit(2, now: 0)
        #expect(written(pool.settings(1, maxConcurrentStreams: 100, now: 0)) == [1: [1, 2]])
        #expect(pool.submit(3, alone: true, now: 0) == [.connect(2)])
        #expect(written(pool.submit(4, now: 0)) == [1: [4]], "the shared connection keeps taking requests")
        #expect(written(pool.settings(2, maxConcurrentStreams: 100, now: 0)) == [2: [3]])
        #expect(pool.submit(5, alone: true, now: 0).isEmpty, "one request at a time on a connection of the alone lane, which is at its maximum")
        #expect(written(pool.submit(6, now: 0)) == [1: [6]])
        #expect(written(answer(&pool, 1, 1)).isEmpty, "a shared connection never carries a request sent alone")
        #expect(written(answer(&pool, 2, 1)) == [2: [5]])
        #expect(pool.connectionCount == 2)
    }

    @Test("requests waiting to go alone open connections of their lane one at a time, up to its maximum, each carrying one of them")
    func aloneLaneGrows() {
        var pool = pool(connections: 1, streams: 4, alone: 2)
        #expect(pool.submit(1, alone: true, now: 0) == [.connect(1)])
        #expect(pool.submit(2, alone: true, now: 0).isEmpty, "one connect at a time")
        _ = pool.submit(3, alone: true, now: 0)
        let first = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        #expect(written(first) == [1: [1]])
        #expect(first.contains(.connect(2)))
        let second = pool.settings(2, maxConcurrentStreams: 100, now: 0)
        #expect(written(second) == [2: [2]])
        #expect(!second.contains { if case .connect = $0 { true } else { false } }, "the lane is at its maximum")
        #expect(pool.aloneConnectionCount == 2)
        #expect(written(answer(&pool, 1, 1)) == [1: [3]])
        #expect(pool.submit(4, now: 0) == [.connect(3)], "shared requests never go on the alone lane")
    }

    @Test("a connection lost under a request sent alone loses that request only; one lost with others on it loses them all")
    func lossesAreLost() {
        var pool = pool(connections: 2, streams: 4)
        _ = pool.submit(1, now: 0)
        _ = pool.submit(2, now: 0)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: 0)
        _ = pool.submit(3, alone: true, now: 0)
        _ = pool.settings(2, maxConcurrentStreams: 100, now: 0)
        #expect(completed(pool.closed(2, error: nil, now: 0, random: 0.5)) == [3: .lost("connection closed")])
        #expect(completed(pool.closed(1, error: nil, now: 0, random: 0.5)) == [1: .lost("connection closed"), 2: .lost("connection closed")])
    }

    @Test("while connects back off, a request sent alone fails at once when no connection of its lane is open")
    func aloneDuringBackoff() {
        var pool = pool(connections: 1, streams: 4)
        _ = pool.submit(1, now: 0)
        _ = pool.closed(1, error: "refused", now: 0, random: 0)
        #expect(pool.submit(2, alone: true, now: 1) == [.complete(2, .failed("connect failed: refused"))])
        #expect(pool.waiting == 0)
    }

    @Test("a request waiting to go alone fails at its deadline and on shutdown like any other")
    func aloneDeadlines() {
        var pool = pool(connections: 1, streams: 4)
        let later = pool.limits.requestTimeout / 2
        _ = pool.submit(1, now: later)
        _ = pool.settings(1, maxConcurrentStreams: 100, now: later)
        _ = pool.submit(2, alone: true, now: 0)
        #expect(completed(pool.tick(now: pool.limits.requestTimeout + 1)) == [2: .failed("timeout")])
        _ = pool.submit(3, alone: true, now: pool.limits.requestTimeout + 1)
        #expect(completed(pool.shutdown())[3] == .failed("transport shut down"))
    }
}
