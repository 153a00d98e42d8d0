import FrostboxCore
import Logging
import Synchronization

/// The database's `StorageHealth`, fed by every statement the adapter runs: `/ready` reads it,
/// and each change of state is one log line (with the SQLSTATE and the server's message), an
/// unchanged failure a reminder at most once a minute with the count of failures meanwhile.
final class StorageHealthMonitor: Sendable {
    private let health = Mutex(StorageHealth())
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let logger: Logger
    private let name: String

    init(name: String, logger: Logger) {
        self.name = name
        self.logger = logger
        self.start = clock.now
    }

    var isAvailable: Bool { health.withLock { $0.isAvailable } }
    var unavailable: StorageUnavailableError? { health.withLock { $0.unavailable } }

    func record(_ outcome: StorageHealth.Outcome) {
        let elapsed = clock.now - start
        let now = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        guard let report = health.withLock({ $0.record(outcome, at: now) }) else { return }
        log(report)
    }

    private func log(_ report: StorageHealth.Report) {
        guard let error = report.unavailable else {
            logger.notice("\(name) available again", metadata: ["failures": "\(report.failures)"])
            return
        }
        var metadata: Logger.Metadata = ["reason": "\(error.reason.rawValue)", "message": "\(error.message)"]
        if let code = error.code { metadata["sqlstate"] = "\(code)" }
        if report.isReminder {
            metadata["failures"] = "\(report.failures)"
            logger.warning("\(name) still unavailable", metadata: metadata)
        } else {
            logger.error("\(name) unavailable", metadata: metadata)
        }
    }
}
