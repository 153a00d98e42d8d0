/// The one place durations become numbers: seconds as a `Double`, and whole milliseconds
/// and nanoseconds (truncated toward zero), for metrics, logs, summaries and settings.
extension Duration {
    /// The duration in seconds, fractions included.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Whole milliseconds.
    public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds.
    public var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
