/// The clock, the waits and the randomness of forecast fetching and its retries, injectable
/// so that tests never wait (the real one is `SystemForecastClock` in `FrostboxForecasting`).
public protocol ForecastClock: Sendable {
    /// Wall clock, UTC epoch seconds.
    func now() -> Int64
    /// Waits (cancellably) for `seconds`.
    func sleep(seconds: Double) async throws
    /// A uniformly random number in [0, 1), for jitter.
    func randomFraction() -> Double
}
