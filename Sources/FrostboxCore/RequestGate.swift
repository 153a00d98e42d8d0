/// Consulted around every HTTP request the client starts, so that a caller can charge each
/// attempt (retries included) to a quota ledger before it starts and settle it after.
public protocol RequestGate: Sendable {
    /// Called before attempt `attempt` (1-based) of a request for `locations` locations:
    /// nil lets it start; a failure stops the fetch with that failure, no request made.
    func admit(locations: Int, attempt: Int) async -> ForecastFailure?
    /// Called after each admitted attempt with what it cost at the server and how it ended.
    func settle(locations: Int, attempt: Int, report: AttemptReport) async
}
