import FrostboxPushEngine

/// The connection settings of APNs gateways: the push engine's, whose defaults suit Apple.
public typealias APNsConnectionSettings = HTTP2ConnectionSettings

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
