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
    /// An idle instance's look for a shared run to join is in flight (it holds `running` until
    /// the database answers whether there is one).
    private var lookingForRun = false
    private var triggered: Task<NotifyRunSummary, Never>?
    private let runEnded: @Sendable () -> Void

    /// - Parameters:
    ///   - clock: UTC epoch seconds now (injected so tests control time).
    ///   - sleep: waits between retry rounds (injected so tests need not wait).
    ///   - resent: told how many sends were of entries sent before (counted from each
    ///     entry's attempts in the outbox: in-run retries and resends after a restart).
    ///   - forecastCache: the cache whose entries of boxes nobody subscribes to any more a run
    ///     purges at its end; nil purges none.
    ///   - runEnded: called after every run of this process, once it has let go of the run's
    ///     memory (the composition root hands freed memory back to the system there).
    ///   - verification: proves pending devices real at the start of each run (the store's
    ///     reads must then leave out devices not yet verified); nil: every device counts.
    ///   - ensembles: the chance of frost from ensembles for subscriptions alerted by
    ///     probability (issue #47); nil: every subscription by the deterministic verdict.
    ///   - nightCheck: checks kept nights against what happened after each run (issue #48).
    public init(
        store: any NotifierStore, forecasts: any ForecastProvider, push: any PushSender, forecastCache: (any ForecastCache)? = nil,
        planner: AlertPlanner = AlertPlanner(), configuration: NotifierSettings = NotifierSettings(),
        runLock: (any NotifierRunLock)? = nil, workQueue: (any NotifyWorkQueue)? = nil, logger: Logger,
        clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        resent: @escaping @Sendable (Int) -> Void = { _ in },
        runEnded: @escaping @Sendable () -> Void = {},
        verification: DeviceVerificationStep? = nil, ensembles: (any EnsembleProvider)? = nil, nightCheck: (any NightChecking)? = nil
    ) {
        var work = NotifyRun(
            store: store, workQueue: workQueue, forecasts: forecasts, ensembles: ensembles, push: push, forecastCache: forecastCache, planner: planner,
            configuration: configuration,
            logger: logger, clock: clock, sleep: sleep, resent: resent, verification: verification)
        // Both database stores keep nights; a store that cannot keeps none.
        work.nightRecords = configuration.keepNights ? store as? any NightRecordStore : nil
        work.nightCheck = configuration.keepNights ? nightCheck : nil
        self.work = work
        self.runLock = runLock
        self.runEnded = runEnded
    }

    /// Whether runs are shared with other instances (a `NotifyWorkQueue`).
    public nonisolated var sharesRuns: Bool { work.workQueue != nil }

    /// Whether a run is going in this process.
    public var isRunning: Bool { running }

    /// Runs once now and returns its summary. A dry run plans but stores and sends nothing;
    /// `onPlanned` sees each chunk of planned entries.
    public func run(dryRun: Bool = false, onPlanned: (@Sendable ([OutboxEntry]) async -> Void)? = nil) async throws -> RunResult {
        if !dryRun, let queue = work.workQueue {
            return try await runShared(queue, startNew: true, startedAfter: nil)
        }
        guard let id = try await beginLocal(dryRun: dryRun) else { return .alreadyRunning }
        defer { endRun() }
        return .completed(await work.perform(runID: id, dryRun: dryRun, onPlanned: onPlanned))
    }

    /// A scheduled run: with a shared work queue, the run in progress is joined, and no new
    /// one starts when another instance started one within the last 90 % of `interval` (so
    /// the cluster as a whole runs about once per interval, whichever instance starts it).
    public func runScheduled(interval: Duration) async throws -> RunResult {
        guard let queue = work.workQueue else { return try await run() }
        return try await runShared(queue, startNew: true, startedAfter: work.clock() - max(1, interval.components.seconds * 9 / 10))
    }

    /// Joins the shared run in progress, if there is one and this instance is not on it.
    /// Nil when there was nothing to join (or no shared work queue).
    public func joinRunInProgress() async throws -> NotifyRunSummary? {
        guard let queue = work.workQueue, case .completed(let summary) = try await runShared(queue, startNew: false, startedAfter: nil)
        else { return nil }
        return summary
    }

    /// Starts a run in the background and returns at once (for `POST /admin/notify`). With
    /// a shared work queue, a run in progress elsewhere is joined (this instance helps), but
    /// no new run was started, which is what the answer says.
    public func trigger() async throws -> TriggerResult {
        let work = self.work
        if let queue = work.workQueue {
            // A look for a run to join holds the notifier for a moment; a run asked for then is
            // not "already running": wait for the look's answer, then start one if it found none.
            for _ in 0..<500 where lookingForRun { try await Task.sleep(for: .milliseconds(10)) }
            guard let begun = try await beginShared(queue, startNew: true, startedAfter: nil) else { return .alreadyRunning }
            let (join, verified) = begun
            triggered = Task {
                let summary = await work.performShared(join, queue: queue, verified: verified)
                self.endRun()
                return summary
            }
            return join.started ? .started(runID: join.runID) : .alreadyRunning
        }
        guard let id = try await beginLocal(dryRun: false) else { return .alreadyRunning }
        triggered = Task {
            let summary = await work.perform(runID: id, dryRun: false, onPlanned: nil)
            self.endRun()
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

    /// Does this instance's part of the shared run it joins or starts.
    private func runShared(_ queue: any NotifyWorkQueue, startNew: Bool, startedAfter: Int64?) async throws -> RunResult {
        guard let begun = try await beginShared(queue, startNew: startNew, startedAfter: startedAfter) else { return .alreadyRunning }
        let (join, verified) = begun
        defer { endRun() }
        return .completed(await work.performShared(join, queue: queue, verified: verified))
    }

    /// Claims this process's run and opens it in the store (a dry run stores nothing: id 0);
    /// nil when a run is already going. The caller ends it.
    private func beginLocal(dryRun: Bool) async throws -> Int64? {
        guard begin() else { return nil }
        do {
            return dryRun ? 0 : try await work.store.startRun(at: work.clock())
        } catch {
            end()
            throw error
        }
    }

    /// Claims this process's run and joins or starts the shared one; nil when this process
    /// is already on a run or there was nothing to join. The caller ends it. An instance that
    /// may start a run proves pending devices real first, before the run lists its boxes (two
    /// instances doing so at once send a device two verification pushes: harmless).
    private func beginShared(
        _ queue: any NotifyWorkQueue, startNew: Bool, startedAfter: Int64?
    ) async throws -> (
        NotifyRunJoin, VerificationRound?
    )? {
        guard begin() else { return nil }
        lookingForRun = !startNew
        defer { lookingForRun = false }
        do {
            let verified = startNew ? try await work.verifyDevices(logger: work.logger) : nil
            if let join = try await queue.joinOrStartRun(at: work.clock(), startNew: startNew, startedAfter: startedAfter) {
                return (join, verified)
            }
        } catch {
            end()
            throw error
        }
        end()
        return nil
    }

    private func begin() -> Bool {
        if running { return false }
        if let runLock, !runLock.tryLock() { return false }
        running = true
        return true
    }

    private func end() {
        running = false
        runLock?.unlock()
    }

    /// Ends a run that happened (not a look that found nothing to join).
    private func endRun() {
        end()
        runEnded()
    }
}
