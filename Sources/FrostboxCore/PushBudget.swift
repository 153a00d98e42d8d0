/// A message budget per window shared by whoever sends under one quota: the push engine's
/// pacer takes from it before each send. In memory for one process; in PostgreSQL for a
/// cluster, whose instances then share each window's budget.
public protocol PushBudgetStore: Sendable {
    /// Takes up to `count` messages of `key`'s budget for the window starting at `window`
    /// (epoch seconds), `limit` in all for that window; returns how many were granted (0…count).
    func take(key: String, window: Int64, count: Int, limit: Int) async throws -> Int
}

/// Where one paced app stands, for the status page and metrics.
public struct PushPacing: Sendable, Hashable, Codable {
    /// The budget's key: `<platform>.<app>`.
    public var budget: String
    /// The configured quota.
    public var messagesPerMinute: Int
    /// Messages let through since start (attempts, retries included).
    public var sent: Int
    /// Time sends spent waiting for the budget or a pause, since start, summed over waiters.
    public var waitedSeconds: Double
    /// Pauses asked by the platform (`Retry-After` on 429 or 503), since start.
    public var pauses: Int
    /// Seconds left of the pause in force, 0 when none.
    public var pausedForSeconds: Double

    public init(budget: String, messagesPerMinute: Int, sent: Int, waitedSeconds: Double, pauses: Int, pausedForSeconds: Double) {
        self.budget = budget
        self.messagesPerMinute = messagesPerMinute
        self.sent = sent
        self.waitedSeconds = waitedSeconds
        self.pauses = pauses
        self.pausedForSeconds = pausedForSeconds
    }
}
