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
/// A heartbeat renews this worker's leases throughout.
extension NotifyRun {
    func performShared(_ join: NotifyRunJoin, queue: any NotifyWorkQueue) async -> NotifyRunSummary {
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
            var delivery = Delivery()
            var stopwatch = ContinuousClock.now
            summary.alertsCarriedOver += try await sendUnclaimed(join.runID, queue, delivery: &delivery, summary: &summary, logger: logger)
            summary.resendMilliseconds = Self.milliseconds(since: stopwatch)
            try await planClaimed(join.runID, queue: queue, delivery: &delivery, summary: &summary, logger: logger)
            stopwatch = ContinuousClock.now
            try await retry(&delivery, summary: &summary, logger: logger)
            summary.deliveryMilliseconds += Self.milliseconds(since: stopwatch)
            // Others may still hold work; what a dead worker held comes free when its leases
            // expire. Looked for again every join interval, as an idle instance looks for runs.
            while try await !queue.remainingWork(runID: join.runID, at: clock()).isEmpty {
                try await sleep(configuration.joinPollInterval)
                try await planClaimed(join.runID, queue: queue, delivery: &delivery, summary: &summary, logger: logger)
                let taken = try await sendUnclaimed(join.runID, queue, delivery: &delivery, summary: &summary, logger: logger)
                summary.alertsCarriedOver += taken
                if taken > 0 { try await retry(&delivery, summary: &summary, logger: logger) }
            }
            try await store.purge(before: clock() - configuration.retentionSeconds)
            try await purgeUnsubscribedForecasts(logger: logger)
        }
        heartbeat.cancel()
        // Stored even when the run is being cancelled by a graceful shutdown.
        if await storeEnd("this worker's part of the run", logger: logger, { try await queue.finishPart(part, at: clock()) }) == true {
            logger.info("closed the shared notify run: no worker is left on it")
        }
        report(part, logger: logger)
        return part
    }

    /// Claims pending entries nobody holds, page by page, and sends them; how many.
    private func sendUnclaimed(
        _ runID: Int64, _ queue: any NotifyWorkQueue, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger
    ) async throws -> Int {
        var found = 0
        while true {
            try Task.checkCancellation()
            let page = try await queue.claimPendingOutbox(runID: runID, limit: max(1, configuration.outboxPageSize), at: clock())
            if page.isEmpty { break }
            found += page.count
            try await sendRound(page, delivery: &delivery, summary: &summary, logger: logger)
        }
        if found > 0 { logger.notice("sent entries nobody held (left pending earlier, or by a worker that stopped)", metadata: ["entries": "\(found)"]) }
        return found
    }

    /// Claims the run's boxes chunk by chunk until none is free, planning and delivering each.
    private func planClaimed(_ runID: Int64, queue: any NotifyWorkQueue, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws
    {
        let chunkSize = max(1, configuration.boxesPerChunk)
        var claimed = 0
        try await planChunks(
            runID: runID, dryRun: false, delivery: &delivery, summary: &summary, logger: logger, onPlanned: nil,
            nextChunk: {
                let chunk = try await queue.claimBoxes(runID: runID, limit: chunkSize, at: clock())
                claimed += chunk.count
                return chunk.isEmpty ? nil : chunk
            },
            chunkStored: { chunk in try await queue.completeBoxes(runID: runID, chunk, at: clock()) })
        summary.boxes += claimed
    }
}
