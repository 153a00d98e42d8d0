import FrostboxCore
import Logging
import ServiceLifecycle
import Synchronization

/// Running totals for the periodic operations report (the line APNs providers traditionally
/// print every five minutes): pushes sent, resent, confirmed, failed and the average time to a
/// confirmation. Pool size and queue length are asked of their owners when the line is written.
public final class OperationsReport: Sendable {
    /// The totals at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Pushes handed to APNs.
        public var sent = 0
        /// Pushes sent again (retries, resends after a restart).
        public var resent = 0
        /// Pushes APNs accepted.
        public var confirmed = 0
        /// Pushes that ended in any failure.
        public var failed = 0
        /// Pushes handed over and not answered yet.
        public var inFlight = 0
        /// Sum of the times to a confirmation, nanoseconds.
        public var confirmNanoseconds: Int64 = 0
        /// Answers by outcome class (`delivered`, `temporary`, `invalid-token`…), for the status page.
        public var outcomes: [String: Int] = [:]
        /// The same by platform (`ios`, `android`).
        public var outcomesByPlatform: [String: [String: Int]] = [:]

        /// Mean time from sending to APNs' confirmation, milliseconds (0 before any).
        public var averageConfirmMilliseconds: Double {
            confirmed == 0 ? 0 : Double(confirmNanoseconds) / Double(confirmed) / 1_000_000
        }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    /// `count` pushes were handed to the sender.
    public func pushStarted(_ count: Int = 1) {
        state.withLock {
            $0.sent += count
            $0.inFlight += count
        }
    }

    /// The sender answered `outcome` for a push to a `platform` device after `elapsed`.
    public func pushFinished(_ outcome: PushOutcome, platform: DevicePlatform = .ios, after elapsed: Duration) {
        state.withLock {
            $0.inFlight -= 1
            $0.outcomes[outcome.failureClass, default: 0] += 1
            $0.outcomesByPlatform[platform.rawValue, default: [:]][outcome.failureClass, default: 0] += 1
            if case .delivered = outcome {
                $0.confirmed += 1
                $0.confirmNanoseconds += elapsed.inNanoseconds
            } else {
                $0.failed += 1
            }
        }
    }

    /// `count` pushes were sent again.
    public func resent(_ count: Int = 1) {
        state.withLock { $0.resent += count }
    }

    /// The totals now.
    public func snapshot() -> Snapshot { state.withLock { $0 } }
}

/// Logs the operations report every `interval` until graceful shutdown, and once more at the end.
public struct OperationsReportService: Service {
    let report: OperationsReport
    let interval: Duration
    /// Open APNs connections (the pool size).
    let poolSize: @Sendable () async -> Int
    /// Alerts waiting to be sent (the queue).
    let queueLength: @Sendable () async -> Int
    /// The latest notify run as `<id> <status>` (e.g. `12 degraded`), nil before any.
    let lastRun: @Sendable () async -> String?
    let logger: Logger

    public init(
        report: OperationsReport, interval: Duration = .seconds(300), logger: Logger,
        poolSize: @escaping @Sendable () async -> Int = { 0 }, queueLength: @escaping @Sendable () async -> Int = { 0 },
        lastRun: @escaping @Sendable () async -> String? = { nil }
    ) {
        self.lastRun = lastRun
        self.report = report
        self.interval = interval
        self.logger = logger
        self.poolSize = poolSize
        self.queueLength = queueLength
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
            await log()
        }
        await log()
    }

    /// Writes one report line.
    public func log() async {
        let totals = report.snapshot()
        let pool = await poolSize()
        let queue = await queueLength()
        let run = await lastRun() ?? "none"
        logger.info(
            "report",
            metadata: [
                "pool": "\(pool)", "queue": "\(queue)", "in_flight": "\(totals.inFlight)", "sent": "\(totals.sent)",
                "resent": "\(totals.resent)", "confirmed": "\(totals.confirmed)", "failed": "\(totals.failed)",
                "avg_confirm_ms": "\((totals.averageConfirmMilliseconds * 10).rounded() / 10)", "last_run": "\(run)",
            ])
    }
}
