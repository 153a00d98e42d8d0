import FrostboxCore
import Logging

/// The notifier: runs notify runs over the core's ports, one at a time. A run resends what
/// earlier runs left pending, plans the alerts of every subscribed box into the outbox, then
/// delivers them (see `NotifyRun`). Schedule it with `NotifierService`.
public actor Notifier {
    /// What asking for a run led to.
    public enum RunResult: Sendable, Equatable {
        /// The run happened; its summary.
        case completed(NotifyRunSummary)
        /// Another run (in this process or another one on the same database) is going.
        case alreadyRunning
    }

    /// What asking for a background run led to.
    public enum TriggerResult: Sendable, Equatable {
        /// A run was started with this id in the runs table.
        case started(runID: Int64)
        case alreadyRunning
    }

    let work: NotifyRun
    let runLock: (any NotifierRunLock)?
    private var running = false
    private var triggered: Task<NotifyRunSummary, Never>?

    /// - Parameters:
    ///   - clock: UTC epoch seconds now (injected so tests control time).
    ///   - sleep: waits between retry rounds (injected so tests need not wait).
    ///   - resent: told how many sends were of entries sent before (counted from each
    ///     entry's attempts in the outbox: in-run retries and resends after a restart).
    public init(
        store: any NotifierStore, forecasts: any ForecastProvider, push: any PushSender,
        planner: AlertPlanner = AlertPlanner(), configuration: NotifierSettings = NotifierSettings(),
        runLock: (any NotifierRunLock)? = nil, logger: Logger,
        clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        resent: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        work = NotifyRun(
            store: store, forecasts: forecasts, push: push, planner: planner, configuration: configuration,
            logger: logger, clock: clock, sleep: sleep, resent: resent)
        self.runLock = runLock
    }

    /// Whether a run is going in this process.
    public var isRunning: Bool { running }

    /// Runs once now and returns its summary. A dry run plans but stores and sends nothing;
    /// `onPlanned` sees each chunk of planned entries.
    public func run(dryRun: Bool = false, onPlanned: (@Sendable ([OutboxEntry]) async -> Void)? = nil) async throws -> RunResult {
        guard await begin() else { return .alreadyRunning }
        let id: Int64
        do {
            id = dryRun ? 0 : try await work.store.startRun(at: work.clock())
        } catch {
            await end()
            throw error
        }
        let summary = await work.perform(runID: id, dryRun: dryRun, onPlanned: onPlanned)
        await end()
        return .completed(summary)
    }

    /// Starts a run in the background and returns at once (for `POST /admin/notify`).
    public func trigger() async throws -> TriggerResult {
        guard await begin() else { return .alreadyRunning }
        let id: Int64
        do {
            id = try await work.store.startRun(at: work.clock())
        } catch {
            await end()
            throw error
        }
        let work = self.work
        triggered = Task {
            let summary = await work.perform(runID: id, dryRun: false, onPlanned: nil)
            await self.end()
            return summary
        }
        return .started(runID: id)
    }

    /// Waits for the run started by the latest `trigger()`; nil when there was none.
    public func triggeredRun() async -> NotifyRunSummary? { await triggered?.value }

    /// Stops the run started by the latest `trigger()` after its current batch, as graceful
    /// shutdown stops a scheduled run, and waits for it: its sends are recorded, what it did
    /// not send stays pending in the outbox for the next run, and its summary is stored
    /// (status interrupted). Nil when there was none.
    public func stopTriggeredRun() async -> NotifyRunSummary? {
        cancelTriggeredRun()
        return await triggered?.value
    }

    /// Asks the run started by the latest `trigger()` to stop after its current batch,
    /// without waiting for it.
    public func cancelTriggeredRun() {
        triggered?.cancel()
    }

    private func begin() async -> Bool {
        if running { return false }
        // Claimed before the lock's await, so that a second caller meanwhile sees it taken.
        running = true
        if let runLock, !(await runLock.tryLock()) {
            running = false
            return false
        }
        return true
    }

    private func end() async {
        await runLock?.unlock()
        running = false
    }
}
