/// Whether the database takes writes, from the outcomes of the statements that ran and of
/// readiness probes: the state behind `/ready` and behind the one log line per change.
/// A pure state machine: the caller passes the time (milliseconds on any monotonic clock).
///
/// A failure makes the state `unavailable`. The state changes back only on evidence that
/// writes work: a write that worked, or a probe that found the server writable. A read that
/// works clears nothing, whatever the condition: through a failover it may have reached a
/// standby (or an old primary demoted to one), which answers reads and refuses every write
/// with SQLSTATE 25006. A disk-full failure holds even against a probe for `diskFullHold`,
/// since only a write can tell that the disk has room again.
public struct StorageHealth: Sendable, Equatable {
    /// What was learnt about the database.
    public enum Outcome: Sendable, Equatable {
        /// A statement worked; `wrote`: it changed data (only then is it evidence that writes work).
        case succeeded(wrote: Bool)
        /// A probe found the server up and accepting writes (not in recovery, not read-only).
        case writable
        case failed(StorageUnavailableError)
    }

    /// A line to log: the state changed (or is still unavailable, once a `reminderInterval`).
    public struct Report: Sendable, Equatable {
        /// The new state: nil when the database is available again.
        public var unavailable: StorageUnavailableError?
        /// Failures counted since the previous report.
        public var failures: Int
        /// Whether this repeats an unchanged state (a reminder) rather than announcing a change.
        public var isReminder: Bool

        public init(unavailable: StorageUnavailableError?, failures: Int, isReminder: Bool) {
            self.unavailable = unavailable
            self.failures = failures
            self.isReminder = isReminder
        }
    }

    /// The condition writes meet now; nil while the database is available.
    public private(set) var unavailable: StorageUnavailableError?
    private var since: Int64 = 0
    private var lastReport: Int64 = .min
    private var failures = 0
    /// How long a disk-full failure holds against probes.
    public var diskFullHold: Int64 = 10_000
    /// Least time between two reminders of an unchanged failure.
    public var reminderInterval: Int64 = 60_000

    public init() {}

    public var isAvailable: Bool { unavailable == nil }

    /// Records `outcome` at `now`; the line to log, if any.
    public mutating func record(_ outcome: Outcome, at now: Int64) -> Report? {
        switch outcome {
        case .failed(let error):
            failures += 1
            if let current = unavailable, current.reason == error.reason, current.code == error.code {
                guard now - lastReport >= reminderInterval else { return nil }
                return report(error, at: now, reminder: true)
            }
            unavailable = error
            since = now
            return report(error, at: now, reminder: false)
        case .succeeded(let wrote):
            guard unavailable != nil, wrote else { return nil }
            return recover(at: now)
        case .writable:
            guard let current = unavailable else { return nil }
            if current.reason == .diskFull, now - since < diskFullHold { return nil }
            return recover(at: now)
        }
    }

    private mutating func recover(at now: Int64) -> Report {
        unavailable = nil
        return report(nil, at: now, reminder: false)
    }

    private mutating func report(_ error: StorageUnavailableError?, at now: Int64, reminder: Bool) -> Report {
        defer {
            failures = 0
            lastReport = now
        }
        return Report(unavailable: error, failures: failures, isReminder: reminder)
    }
}
