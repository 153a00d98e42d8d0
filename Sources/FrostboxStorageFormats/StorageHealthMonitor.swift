import FrostboxCore
import Logging
import Synchronization

/// A database's `StorageHealth`, fed by every write (SQLite) or statement (PostgreSQL) its
/// adapter runs and by the readiness probe: `/ready` reads it, and each change of state is one
/// log line (with the engine's code — SQLite result code or SQLSTATE — and its message), an
/// unchanged failure a reminder at most once a minute with the count of failures meanwhile.
/// Shared by both adapters, which do not depend on each other; each names its lines.
public final class StorageHealthMonitor: Sendable {
    /// What a database's log lines say.
    public struct Lines: Sendable {
        public var unavailable: String
        public var stillUnavailable: String
        public var availableAgain: String
        /// The metadata key of the engine's error code.
        public var codeKey: String

        public init(unavailable: String, stillUnavailable: String, availableAgain: String, codeKey: String) {
            self.unavailable = unavailable
            self.stillUnavailable = stillUnavailable
            self.availableAgain = availableAgain
            self.codeKey = codeKey
        }
    }

    private let health = Mutex(StorageHealth())
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let lines: Lines
    private let logger: Logger

    public init(lines: Lines, logger: Logger) {
        self.lines = lines
        self.logger = logger
        self.start = clock.now
    }

    /// Whether writes are taken (as far as the last writes and probes tell).
    public var isAvailable: Bool { health.withLock { $0.isAvailable } }
    /// The condition writes meet now; nil while the database takes them.
    public var unavailable: StorageUnavailableError? { health.withLock { $0.unavailable } }

    /// How long a disk-full failure holds against a successful readiness probe (a probe
    /// writes little; only real writes tell for sure that the disk has room again).
    public var diskFullHold: Duration {
        get { .milliseconds(health.withLock { $0.diskFullHold }) }
        set { health.withLock { $0.diskFullHold = newValue.inMilliseconds } }
    }

    public func record(_ outcome: StorageHealth.Outcome) {
        let now = (clock.now - start).inMilliseconds
        guard let report = health.withLock({ $0.record(outcome, at: now) }) else { return }
        log(report)
    }

    private func log(_ report: StorageHealth.Report) {
        guard let error = report.unavailable else {
            logger.notice("\(lines.availableAgain)", metadata: ["failures": "\(report.failures)"])
            return
        }
        var metadata: Logger.Metadata = ["reason": "\(error.reason.rawValue)", "message": "\(error.message)"]
        if let code = error.code { metadata[lines.codeKey] = "\(code)" }
        if report.isReminder {
            metadata["failures"] = "\(report.failures)"
            logger.warning("\(lines.stillUnavailable)", metadata: metadata)
        } else {
            logger.error("\(lines.unavailable)", metadata: metadata)
        }
    }
}
