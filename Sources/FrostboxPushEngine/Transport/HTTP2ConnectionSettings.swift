/// How a push gateway's HTTP/2 connections are used. The defaults suit Apple's and Google's
/// gateways: many concurrent streams on one connection, a second one only under load.
public struct HTTP2ConnectionSettings: Sendable, Hashable {
    /// Most connections per gateway, shared out over the event loops it spreads over (at most
    /// this many loops; see `HTTP2Gateway`). A new one of a loop opens only when every open one
    /// of that loop has as many streams in flight as it may. Pushes sent alone (after their
    /// connection was lost) use up to as many again (at least 4), each carrying one push at a time.
    public var maximumConnections: Int = 4
    /// Streams in flight per connection at most; the server's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// lowers it when smaller. 100 measured best against nginx (docs/benchmarks.md): more
    /// streams on one connection make its stream map and flow control the bottleneck.
    public var streamsPerConnection: Int = 100
    /// Deadline of one request, from handing it over to the last response byte.
    public var requestTimeout: Duration = .seconds(15)
    /// TCP + TLS connect timeout.
    public var connectTimeout: Duration = .seconds(10)
    /// A connection with no open stream for this long is closed.
    public var idleTimeout: Duration = .seconds(300)
    /// A connection that received nothing for this long is sent an HTTP/2 PING.
    public var pingInterval: Duration = .seconds(60)
    /// A PING unanswered for this long closes the connection (it is dead; requests go to a new one).
    public var pingTimeout: Duration = .seconds(20)
    /// Largest response body kept (APNs error bodies are a few dozen bytes, FCM's well under 2 KiB).
    public var maximumResponseBodySize: Int = 16 * 1024
    /// Wait before reconnecting after a failed connect; doubles per failure in a row (with
    /// jitter: a random point in the upper half), so a gateway outage is no reconnect storm.
    public var reconnectInitialBackoff: Duration = .seconds(1)
    /// Ceiling of the reconnect wait.
    public var reconnectMaximumBackoff: Duration = .seconds(60)

    public init() {}
}
