import Foundation

/// When and how often temporary failures (429, 5xx, resets, lost connections, deadlines) are
/// retried, on every platform: exponential backoff with jitter, a server's `Retry-After`
/// honoured up to a ceiling, a bounded number of attempts, and the isolation of a push that
/// brings its connection down.
public struct PushRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (so `maximumAttempts - 1` retries).
    public var maximumAttempts: Int = 4
    /// Delay before the first retry.
    public var initialBackoff: Duration = .milliseconds(200)
    /// Ceiling for one backoff delay.
    public var maximumBackoff: Duration = .seconds(10)
    /// Ceiling for a server's `Retry-After`: a push never waits longer than this between two
    /// attempts, whatever the server asks.
    public var maximumRetryAfter: Duration = .seconds(60)
    /// Times a request refused unprocessed (GOAWAY, REFUSED_STREAM) is resent at once before it
    /// counts as a temporary failure.
    public var maximumUnprocessedResends: Int = 10
    /// A push whose connection was lost under it is sent again alone (on a connection that
    /// carries nothing else meanwhile); lost this many times while alone, it is the push that
    /// makes the gateway drop the connection (`poison_losses`), and fails permanently instead of
    /// taking other pushes down with it again. At least 1. A push sent alone may take more
    /// attempts than `maximumAttempts` to be lost this often.
    public var lossesAloneBeforeGivingUp: Int = 2

    /// APNs' defaults.
    public init() {}

    /// FCM's defaults: a longer first backoff (Google asks for at least a few hundred ms).
    public static var fcm: PushRetryPolicy {
        var policy = PushRetryPolicy()
        policy.initialBackoff = .milliseconds(500)
        return policy
    }

    /// The delay before retry number `retry` (1-based): `initial · 2^(retry-1)`, capped, then
    /// "equal jitter" — a uniformly random point in its upper half, so that many failed pushes
    /// do not come back at the same instant. `random` is a number in 0..<1.
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

    /// A `Retry-After` header (RFC 9110 §10.2.3) as a delay from now: delay-seconds, or an HTTP
    /// date (a date passed is no delay); garbage is nil (the backoff then).
    package static func retryAfter(_ value: String) -> Duration? {
        retryAfter(value, now: Int64(Date().timeIntervalSince1970))
    }

    /// The same, `now` in seconds since 1970.
    package static func retryAfter(_ value: String, now: Int64) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = HTTPDate.seconds(text) else { return nil }
        return .seconds(max(0, date - now))
    }
}
