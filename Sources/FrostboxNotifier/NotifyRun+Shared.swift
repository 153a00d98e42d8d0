import FrostboxCore
import Logging

/// A run shared by several instances (`NotifyWorkQueue`): this instance's part of it.
///
/// 1. claim and send pending entries nobody holds (left by earlier runs, or by an instance
///    that died: its claims expired);
/// 2. claim the run's boxes chunk by chunk, plan and queue their alerts (claimed by this
///    instance as they are written), mark the chunk done, deliver;
/// 3. retry temporary failures;
/// 4. until the run has no work left anywhere: wait, then take over boxes and entries whose
///    holders stopped renewing their leases;
/// 5. store this part; the last worker on the run closes it with the sum of all parts.
///
/// A heartbeat renews this worker's leases throughout. While the database is unavailable
/// (`StorageUnavailableError`) the part waits, for `configuration.endRetryWindow` at most, and
/// resumes where it stopped (`PartState`), first sending again what the failure cut short;
/// only a longer outage ends it `failed`, and so do outcomes of sent pushes that could not be
/// recorded (`UnrecordedOutcomes`: the delivery already waited for the database as long),
/// never resumed into a `completed` part.
extension NotifyRun {
    func performShared(_ join: NotifyRunJoin, queue: any NotifyWorkQueue, verified: VerificationRound? = nil) async -> NotifyRunSummary {
        let logger = {
            var logger = self.logger
            logger[metadataKey: "run"] = "\(join.runID)"
            logger[metadataKey: "worker"] = "\(queue.worker)"
            return logger
        }()
        logger.info(join.started ? "started a shared notify run" : "joined a shared notify run", metadata: ["boxes": "\(join.boxes)"])
        let clock = self.clock
        let renewEvery = Duration.seconds(max(1, queue.leaseSeconds / 3))
        // Real time, not the injected sleep: the other instances judge leases by their clocks.
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: renewEvery)
                if Task.isCancelled { break }
                do {
                    try await queue.renewLeases(runID: join.runID, at: clock())
                } catch {
                    logger.warning("could not renew this worker's leases", metadata: ["error": "\(error)"])
                }
            }
        }
        let part = await conclude(NotifyRunSummary(id: join.runID, startedAt: clock())) { summary in
            summary.add(verified, countsBoxes: join.started)
            var work = PartState(outage: OutageBudget(window: configuration.endRetryWindow))
            // The database unavailable for a while (a restart, a failover): this part waits it
            // out and resumes where it stopped, its leases renewed meanwhile by the heartbeat
            // (once the database answers again), instead of ending `failed` with work in hand.
            while true {
                do {
                    return try await doPart(join.runID, queue, work: &work, summary: &summary, logger: logger)
                } catch let error as StorageUnavailableError {
                    guard let pause = work.outage.pause() else { throw error }
                    logger.warning(
                        "the database is unavailable; resuming this worker's part when it answers again",
                        metadata: ["error": "\(error)", "pause": "\(pause)"])
                    try await sleep(pause)
                }
            }
        }
        heartbeat.cancel()
        // Stored even when the run is being cancelled by a graceful shutdown.
        if await storeEnd("this worker's part of the run", logger: logger, { try await queue.finishPart(part, at: clock()) }) == true {
            logger.info("closed the shared notify run: no worker is left on it")
        }
        report(part, logger: logger)
        return part
    }

    /// What a part carries across a resumption: its delivery state (with the entries of the
    /// delivery the failure cut short, `Delivery.cutShort`), the chunk it had claimed and not
    /// yet marked done, and how much longer it may wait for the database.
    struct PartState {
        var delivery = Delivery()
        /// Claimed, not yet marked done: planned again first on resuming (planning is
        /// idempotent: events already queued are marked alerted in the same transaction).
        var unfinished: [GeoBox]?
        var outage: OutageBudget
    }

    /// This worker's steps of the run (see the type's comment), resumable: a work-queue call
    /// refused as unavailable is tried again in place (`patiently`), so the entries a chunk
    /// queued are still sent by this part.
    private func doPart(
        _ runID: Int64, _ queue: any NotifyWorkQueue, work: inout PartState, summary: inout NotifyRunSummary, logger: Logger
    )
        async throws
    {
        var stopwatch = ContinuousClock.now
        try await sendCutShort(runID, queue, work: &work, summary: &summary, logger: logger)
        summary.deliveryMilliseconds += Self.milliseconds(since: stopwatch)
        stopwatch = ContinuousClock.now
        try await sendUnclaimed(runID, queue, work: &work, summary: &summary, logger: logger)
        summary.resendMilliseconds += Self.milliseconds(since: stopwatch)
        try await planClaimed(runID, queue: queue, work: &work, summary: &summary, logger: logger)
        stopwatch = ContinuousClock.now
        try await retry(&work.delivery, summary: &summary, logger: logger)
        summary.deliveryMilliseconds += Self.milliseconds(since: stopwatch)
        // Others may still hold work; what a dead worker held comes free when its leases
        // expire. Looked for again every join interval, as an idle instance looks for runs.
        while try await !patiently(&work.outage, logger: logger, { try await queue.remainingWork(runID: runID, at: clock()) }).isEmpty {
            try await sleep(configuration.joinPollInterval)
            try await planClaimed(runID, queue: queue, work: &work, summary: &summary, logger: logger)
            let taken = try await sendUnclaimed(runID, queue, work: &work, summary: &summary, logger: logger)
            if taken > 0 { try await retry(&work.delivery, summary: &summary, logger: logger) }
        }
        try await store.purge(before: clock() - configuration.retentionSeconds)
        try await nightRecords?.purgeNights(endedBefore: clock() - configuration.nightRetentionSeconds)
        try await purgeUnsubscribedForecasts(logger: logger)
        await checkNights(logger: logger)
    }

    /// On resuming, sends the entries of the delivery the failure cut short that are still
    /// pending: held by this worker in this run, they are claimable by nobody else while it
    /// renews its heartbeat, so a part that went on without them would end `completed` with its
    /// alerts unsent. Those whose outcome was stored are not sent again; temporary failures
    /// wait for `retry`, and an app whose credentials were refused keeps its alerts held.
    private func sendCutShort(
        _ runID: Int64, _ queue: any NotifyWorkQueue, work: inout PartState, summary: inout NotifyRunSummary, logger: Logger
    ) async throws {
        guard !work.delivery.cutShort.isEmpty else { return }
        let (retrying, blocked) = (Set(work.delivery.retry.map(\.id)), work.delivery.blocked)
        let ids = Set(work.delivery.cutShort.lazy.filter { !retrying.contains($0.id) && !blocked.contains($0.notification.destination) }.map(\.id))
        let again = try await patiently(&work.outage, logger: logger) {
            try await queue.reclaimPendingOutbox(runID: runID, ids: ids.sorted(), at: clock())
        }
        work.delivery.cutShort = []
        guard !again.isEmpty else { return }
        logger.notice("sending the entries an unavailable database cut short", metadata: ["entries": "\(again.count)"])
        try await sendRound(again, delivery: &work.delivery, summary: &summary, logger: logger)
    }

    /// Claims pending entries nobody holds, page by page, and sends them; how many (counted as
    /// carried over as each page is claimed, so a page an outage cuts short counts too).
    @discardableResult
    private func sendUnclaimed(
        _ runID: Int64, _ queue: any NotifyWorkQueue, work: inout PartState, summary: inout NotifyRunSummary, logger: Logger
    ) async throws -> Int {
        var found = 0
        let pageSize = max(1, configuration.outboxPageSize)
        while true {
            try Task.checkCancellation()
            let page = try await patiently(&work.outage, logger: logger) { try await queue.claimPendingOutbox(runID: runID, limit: pageSize, at: clock()) }
            if page.isEmpty { break }
            found += page.count
            summary.alertsCarriedOver += page.count
            try await sendRound(page, delivery: &work.delivery, summary: &summary, logger: logger)
        }
        if found > 0 { logger.notice("sent entries nobody held (left pending earlier, or by a worker that stopped)", metadata: ["entries": "\(found)"]) }
        return found
    }

    /// Claims the run's boxes chunk by chunk until none is free (the unfinished chunk of an
    /// interrupted attempt first), planning and delivering each.
    private func planClaimed(
        _ runID: Int64, queue: any NotifyWorkQueue, work: inout PartState, summary: inout NotifyRunSummary, logger: Logger
    )
        async throws
    {
        let chunkSize = max(1, configuration.boxesPerChunk)
        // Locals for the closures: `work.delivery` and `summary` are in planChunks' hands meanwhile.
        var (unfinished, outage, done) = (work.unfinished, work.outage, 0)
        defer {
            (work.unfinished, work.outage) = (unfinished, outage)
            summary.boxes += done
        }
        try await planChunks(
            runID: runID, dryRun: false, delivery: &work.delivery, summary: &summary, logger: logger, onPlanned: nil,
            nextChunk: {
                if let unfinished { return unfinished }
                let chunk = try await patiently(&outage, logger: logger) {
                    do {
                        return try await queue.claimBoxes(runID: runID, limit: chunkSize, at: clock())
                    } catch let error as StorageUnavailableError where error.reason == .down {
                        throw UncertainClaim(error: error)
                    }
                }
                if chunk.isEmpty { return nil }
                unfinished = chunk
                return chunk
            },
            chunkStored: { chunk in
                try await patiently(&outage, logger: logger) { try await queue.completeBoxes(runID: runID, chunk, at: clock()) }
                unfinished = nil
                done += chunk.count
            })
    }

    /// `call`, tried again after a pause while it fails with `StorageUnavailableError` and
    /// `outage` allows; a success gives the budget back whole.
    private func patiently<T>(_ outage: inout OutageBudget, logger: Logger, _ call: () async throws -> T) async throws -> T {
        while true {
            do {
                let value = try await call()
                outage.reset()
                return value
            } catch let error as StorageUnavailableError {
                guard let pause = outage.pause() else { throw error }
                logger.debug("the work queue is unavailable; trying again", metadata: ["error": "\(error)", "pause": "\(pause)"])
                try await sleep(pause)
            }
        }
    }
}

/// A claim of boxes whose connection failed under it: the claim may have been committed, and
/// boxes this worker does not know it holds would be renewed by its heartbeat for ever, the
/// run never ending. Not resumed: the part ends failed, its heartbeat stops, and the leases
/// expire for another worker (or the next run) to take over, as before resumption existed.
struct UncertainClaim: Error, CustomStringConvertible {
    let error: StorageUnavailableError
    var description: String { "\(error) (while claiming boxes: the claim may have been stored; its leases are left to expire)" }
}

/// How long a shared run's worker still waits out an unavailable database: pauses growing
/// from 250 ms to 5 s, summed (not timed, so the injected sleep of tests counts alike) up to
/// `window` since the last success; nil once it is spent.
struct OutageBudget {
    let window: Duration
    private(set) var waited: Duration = .zero
    private var next: Duration = .milliseconds(250)

    init(window: Duration) { self.window = window }

    mutating func pause() -> Duration? {
        guard waited + next <= window else { return nil }
        defer {
            waited += next
            next = min(next * 2, .seconds(5))
        }
        return next
    }

    mutating func reset() {
        waited = .zero
        next = .milliseconds(250)
    }
}
