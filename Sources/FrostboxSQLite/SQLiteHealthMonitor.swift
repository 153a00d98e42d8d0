import FrostboxCore
import Logging
import Synchronization

/// The SQLite file's `StorageHealth`, fed by every write the adapter makes and by the
/// readiness probe: `/ready` reads it, and each change of state is one log line (with the
/// SQLite result code and the system's reason), an unchanged failure a reminder at most once
/// a minute with the count of failures meanwhile. (The PostgreSQL adapter has its own, with
/// the SQLSTATE: adapters do not depend on each other.)
public final class SQLiteHealthMonitor: Sendable {
    private let health = Mutex(StorageHealth())
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let logger: Logger

    init(logger: Logger) {
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
        set {
            let milliseconds = newValue.components.seconds * 1_000 + newValue.components.attoseconds / 1_000_000_000_000_000
            health.withLock { $0.diskFullHold = milliseconds }
        }
    }

    func record(_ outcome: StorageHealth.Outcome) {
        let elapsed = clock.now - start
        let now = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        guard let report = health.withLock({ $0.record(outcome, at: now) }) else { return }
        log(report)
    }

    private func log(_ report: StorageHealth.Report) {
        guard let error = report.unavailable else {
            logger.notice("SQLite database takes writes again", metadata: ["failures": "\(report.failures)"])
            return
        }
        var metadata: Logger.Metadata = ["reason": "\(error.reason.rawValue)", "message": "\(error.message)"]
        if let code = error.code { metadata["code"] = "\(code)" }
        if report.isReminder {
            metadata["failures"] = "\(report.failures)"
            logger.warning("SQLite database still refuses writes", metadata: metadata)
        } else {
            logger.error("SQLite database refuses writes", metadata: metadata)
        }
    }
}
