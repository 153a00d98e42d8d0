import NIOCore

/// What one HTTP/2 exchange with a gateway gave.
package enum HTTP2Exchange: Sendable, Equatable {
    /// The gateway answered.
    case response(status: Int, header: String?, body: ByteBuffer?)
    /// The request certainly was not processed, even after being sent again on other
    /// connections (refused streams, GOAWAY cuts): resend later.
    case unprocessed(String)
    /// No answer (stream reset, timeout, TLS failure): it may or may not have been processed.
    case failed(String)
    /// No answer because the connection it was on closed: it may or may not have been
    /// processed, and it may be what made the gateway close it.
    case lost(String)
}

extension HTTP2PoolState {
    /// The limits it works within.
    struct Limits: Equatable {
        var maximumConnections = 4
        /// Most connections of the alone lane (requests sent alone, one at a time on each),
        /// beside the shared ones.
        var maximumAloneConnections = 4
        var streamsPerConnection = 100
        var requestTimeout: Int64 = 15_000_000_000
        var idleTimeout: Int64 = 300_000_000_000
        /// Times one request is sent again after REFUSED_STREAM or a GOAWAY cut before it is
        /// handed back as unprocessed.
        var maximumResends = 10
        var maximumResponseBodySize = 16 * 1024
        /// First reconnect delay after a failed connect, doubling per failure up to `maximumBackoff`.
        var initialBackoff: Int64 = 1_000_000_000
        var maximumBackoff: Int64 = 60_000_000_000
    }

    /// Which requests a connection carries.
    enum Lane: Equatable {
        /// Any number of requests at once, up to its stream limit.
        case shared
        /// One request sent alone at a time, nothing else.
        case alone
    }

    /// Something the transport must do.
    enum Action: Equatable {
        /// Open connection `id` (TCP, TLS, HTTP/2 preface).
        case connect(HTTP2ConnectionID)
        /// Write each request as HEADERS + DATA on its stream, then flush once.
        case write(HTTP2ConnectionID, [Started])
        /// RST_STREAM(CANCEL) on a stream whose request was given up.
        case resetStream(HTTP2ConnectionID, Int32)
        /// Close the connection.
        case close(HTTP2ConnectionID)
        /// Hand the result to the request's caller.
        case complete(HTTP2RequestID, HTTP2Exchange)
    }

    /// A request given a stream.
    struct Started: Equatable {
        let request: HTTP2RequestID
        let stream: Int32
    }
}

/// Identifies one connection of a transport.
package typealias HTTP2ConnectionID = Int
