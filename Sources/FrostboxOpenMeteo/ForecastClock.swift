import Foundation

/// The clock, the waits and the randomness of retries, injectable so that tests never wait.
public protocol ForecastClock: Sendable {
    /// Wall clock, UTC epoch seconds.
    func now() -> Int64
    /// Waits (cancellably) for `seconds`.
    func sleep(seconds: Double) async throws
    /// A uniformly random number in [0, 1), for jitter.
    func randomFraction() -> Double
}

/// The real clock, `Task.sleep` and the system random generator.
public struct SystemForecastClock: ForecastClock {
    public init() {}

    public func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1_000)))
    }

    public func randomFraction() -> Double { Double.random(in: 0..<1) }
}
