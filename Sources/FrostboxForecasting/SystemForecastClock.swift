import Foundation
import FrostboxCore

/// The real `ForecastClock`: the system's wall clock, `Task.sleep` and the system random
/// generator.
public struct SystemForecastClock: ForecastClock {
    public init() {}

    public func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1_000)))
    }

    public func randomFraction() -> Double { Double.random(in: 0..<1) }
}
