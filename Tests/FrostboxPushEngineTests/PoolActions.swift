@testable import FrostboxPushEngine

// Reading a pool's actions, for the tests of the pool state machine.

/// The requests each connection was told to write.
func written(_ actions: [HTTP2PoolState.Action]) -> [HTTP2ConnectionID: [HTTP2RequestID]] {
    var result: [HTTP2ConnectionID: [HTTP2RequestID]] = [:]
    for case .write(let id, let started) in actions { result[id, default: []] += started.map(\.request) }
    return result
}

/// The requests handed back, with what became of them.
func completed(_ actions: [HTTP2PoolState.Action]) -> [HTTP2RequestID: HTTP2Exchange] {
    var result: [HTTP2RequestID: HTTP2Exchange] = [:]
    for case .complete(let id, let exchange) in actions { result[id] = exchange }
    return result
}

/// A 200 on `stream` of `connection`, in one HEADERS frame.
func answer(_ pool: inout HTTP2PoolState, _ connection: HTTP2ConnectionID, _ stream: Int32) -> [HTTP2PoolState.Action] {
    pool.headers(connection, stream: stream, status: 200, header: nil, endStream: true, now: 0)
}
