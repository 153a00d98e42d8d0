/// Which of Open-Meteo's limits a 429 names, read from its reason ("Minutely API request
/// limit exceeded. Please try again in one minute.", "Hourly …", "Daily …").
public enum RateLimitReason: String, Sendable, Hashable, CaseIterable {
    case minute
    case hour
    case day
    /// A 429 naming no window (e.g. "Too many concurrent requests"): retried with backoff.
    case other

    /// Classifies a 429's reason text.
    public init(reason: String) {
        let text = reason.lowercased()
        if text.contains("minutely") || text.contains("per minute") || text.contains("one minute") {
            self = .minute
        } else if text.contains("hourly") || text.contains("per hour") || text.contains("next hour") {
            self = .hour
        } else if text.contains("daily") || text.contains("per day") || text.contains("tomorrow") {
            self = .day
        } else {
            self = .other
        }
    }

    /// When a request may be tried again, UTC epoch seconds, for a 429 received at `now`:
    /// a minute later, at the next full hour, or at the next UTC midnight (when the free
    /// API's counters reset); nil for `other`.
    public func retryAfter(now: Int64) -> Int64? {
        switch self {
        case .minute: now + 60
        case .hour: (now / 3_600 + 1) * 3_600
        case .day: (now / 86_400 + 1) * 86_400
        case .other: nil
        }
    }
}
