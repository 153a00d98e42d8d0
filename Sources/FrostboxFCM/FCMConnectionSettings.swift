import FrostboxCore

/// Limits of the FCM transport, the same for every app of a router.
public struct FCMConnectionSettings: Sendable, Hashable {
    /// Deadline of one `messages:send` request, from sending to the whole answer read.
    public var requestTimeout: Duration = .seconds(15)
    /// Deadline of one token request (the token endpoint is another server, with its own pace).
    public var tokenRequestTimeout: Duration = .seconds(15)
    /// Deadline of a TCP + TLS connection set-up.
    public var connectTimeout: Duration = .seconds(5)
    /// Largest answer body read; a longer one fails the attempt (FCM's are well under 2 KiB).
    public var maximumResponseBytes = 64 * 1024
    /// Messages of one batch in flight at once (HTTP/2 streams, over few connections).
    public var maximumConcurrentSends = 256
    /// Connections of their own for messages sent alone (after their connection was lost),
    /// one message at a time on each.
    public var soloLanes = 4

    public init() {}
}

/// How temporary failures are retried: exponential backoff with jitter, `Retry-After`
/// honoured up to a ceiling, a bounded number of attempts.
public struct FCMRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int = 4
    /// Delay before the first retry.
    public var initialBackoff: Duration = .milliseconds(500)
    /// Ceiling for one backoff delay.
    public var maximumBackoff: Duration = .seconds(10)
    /// Ceiling for a server's `Retry-After`: a send never waits longer than this between two
    /// attempts, whatever the server asks.
    public var maximumRetryAfter: Duration = .seconds(60)
    /// A message whose connection was lost under it is sent again alone (on a connection that
    /// carries nothing else meanwhile); lost this many times while alone, it is the message
    /// that makes the server drop the connection, and fails permanently instead of taking
    /// other messages down with it again. At least 1; a message sent alone may take more
    /// attempts than `maximumAttempts` to be lost this often.
    public var lossesAloneBeforeGivingUp: Int = 2

    public init() {}

    /// The delay before retry number `retry` (1-based): `initial · 2^(retry-1)`, capped, in
    /// its upper half at random ("equal jitter"); `random` is in 0..<1.
    public func backoff(beforeRetry retry: Int, random: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let base = min(initialBackoff * (1 << exponent), maximumBackoff)
        return base / 2 + (base / 2) * min(max(random, 0), 1)
    }

    /// The delay before retry number `retry` after an answer that said `retryAfter`: the
    /// server's delay (capped at `maximumRetryAfter`) or the backoff, whichever is longer.
    public func delay(beforeRetry retry: Int, retryAfter: Duration?, random: Double) -> Duration {
        let backoff = backoff(beforeRetry: retry, random: random)
        guard let retryAfter else { return backoff }
        return max(min(retryAfter, maximumRetryAfter), backoff)
    }
}
