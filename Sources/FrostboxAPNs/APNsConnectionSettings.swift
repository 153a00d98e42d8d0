/// How the provider uses its HTTP/2 connections. The defaults suit Apple's gateways: many
/// concurrent streams on one connection, a second one only under load.
public struct APNsConnectionSettings: Sendable, Hashable {
    /// Most connections per gateway, shared out over the event loops it spreads over (at most
    /// this many loops; see `APNsGateway`). A new one of a loop opens only when every open one
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
    /// Largest response body read (APNs error bodies are a few dozen bytes).
    public var maximumResponseBodySize: Int = 16 * 1024
    /// Wait before reconnecting after a failed connect; doubles per failure in a row (with
    /// jitter: a random point in the upper half), so a gateway outage is no reconnect storm.
    public var reconnectInitialBackoff: Duration = .seconds(1)
    /// Ceiling of the reconnect wait.
    public var reconnectMaximumBackoff: Duration = .seconds(60)

    public init() {}
}

/// When and how often temporary failures (429, 500, 503, connection errors, timeouts) are
/// retried: exponential backoff with jitter, up to a maximum number of attempts.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (so `maximumAttempts - 1` retries).
    public var maximumAttempts: Int = 4
    /// Delay before the first retry.
    public var initialBackoff: Duration = .milliseconds(200)
    /// Ceiling for one delay.
    public var maximumBackoff: Duration = .seconds(10)
    /// Times a request refused unprocessed (GOAWAY, REFUSED_STREAM) is resent at once before it
    /// counts as a temporary failure.
    public var maximumUnprocessedResends: Int = 10
    /// A push whose connection was lost under it is sent again alone (on a connection that
    /// carries nothing else meanwhile); lost this many times while alone, it is the push that
    /// makes the gateway drop the connection, and fails permanently instead of taking other
    /// pushes down with it again. At least 1. A push sent alone may take more attempts than
    /// `maximumAttempts` to be lost this often.
    public var lossesAloneBeforeGivingUp: Int = 2

    public init() {}

    /// The delay before retry number `retry` (1-based): `initial · 2^(retry-1)`, capped, then
    /// "equal jitter" — a uniformly random point in its upper half, so that many failed pushes
    /// do not come back at the same instant. `random` is a number in 0..<1.
    public func backoff(beforeRetry retry: Int, random: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let base = min(initialBackoff * (1 << exponent), maximumBackoff)
        return base / 2 + (base / 2) * min(max(random, 0), 1)
    }
}
