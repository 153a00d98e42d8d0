import Logging
import Synchronization

/// What push services keep: RFC 8030 lets a push service keep a push for less time than the
/// `TTL` asked, and it answers the `TTL` it kept. A service that cuts an alert's time short
/// drops it for a browser that is offline longer, so the first cut seen at an origin, and each
/// different one after it, is logged once (not per push).
package final class WebPushTTLWatch: Sendable {
    /// Slack for the seconds between asking and the answer, and services' rounding.
    static let slack: Int64 = 60
    private let logger: Logger
    /// The last kept TTL logged, by origin.
    private let logged = Mutex<[String: Int64]>([:])

    package init(logger: Logger) { self.logger = logger }

    /// Notes a push to `origin` that had `asked` seconds left and was answered `answered` (the
    /// raw `TTL` header); true when the service kept it for less than asked.
    @discardableResult
    package func note(origin: String, asked: Int64, answered: String?) -> Bool {
        guard let answered, let kept = Int64(answered), kept >= 0, kept < asked - Self.slack else { return false }
        let first = logged.withLock { logged in
            guard logged[origin] != kept else { return false }
            logged[origin] = kept
            return true
        }
        if first {
            logger.notice(
                "push service keeps pushes for less time than asked: an alert is dropped for a browser offline longer",
                metadata: ["origin": "\(origin)", "ttl-asked": "\(asked)", "ttl-kept": "\(kept)"])
        }
        return true
    }

    /// The last kept TTL seen cut short, by origin.
    package var cuts: [String: Int64] { logged.withLock { $0 } }
}
