import FrostboxCore
import Logging
import Metrics

/// The work of one notify run, without the scheduling:
///
/// 0. prove pending devices real (`DeviceVerificationStep`), when that is required, so that
///    the boxes of those verified now are asked for in this run;
/// 1. resend the outbox entries earlier runs left pending (a crash, temporary failures, held
///    through quiet hours that have ended), with their original apns-id and collapse-id;
/// 2. for the distinct subscribed boxes, chunk by chunk (failed and left-out boxes first): get
///    forecasts, compute one verdict per box and distinct rule, plan one alert per device and
///    event, and queue the alerts in the outbox in the transaction that marks them alerted;
/// 3. deliver the new entries with bounded concurrency, retrying temporary failures with
///    backoff, pruning dead tokens;
/// 4. purge what has aged out, and store the summary.
struct NotifyRun: Sendable {
    let store: any NotifierStore
    /// Runs shared with other instances (PostgreSQL); nil: this process does whole runs.
    let workQueue: (any NotifyWorkQueue)?
    let forecasts: any ForecastProvider
    /// Ensembles for the chance of frost (issue #47); nil: the deterministic verdict alone.
    let ensembles: (any EnsembleProvider)?
    let push: any PushSender
    /// Purged of boxes nobody subscribes to any more at the end of a run.
    let forecastCache: (any ForecastCache)?
    let planner: AlertPlanner
    let configuration: NotifierSettings
    let logger: Logger
    /// UTC epoch seconds now.
    let clock: @Sendable () -> Int64
    let sleep: @Sendable (Duration) async throws -> Void
    /// Told how many pushes of a round were sends of entries sent before.
    let resent: @Sendable (Int) -> Void
    /// Proves pending devices real before forecasts are asked for; nil: every device counts.
    let verification: DeviceVerificationStep?
    /// Where each box's nights are kept for the check (issue #48); nil: none are kept.
    var nightRecords: (any NightRecordStore)? = nil
    /// Checks kept nights against what happened after each run (issue #48); nil: no check.
    var nightCheck: (any NightChecking)? = nil

    func perform(runID: Int64, dryRun: Bool, onPlanned: (@Sendable ([OutboxEntry]) async -> Void)?) async -> NotifyRunSummary {
        var logger = self.logger
        logger[metadataKey: "run"] = "\(runID)"
        let summary = await conclude(NotifyRunSummary(id: runID, startedAt: clock(), dryRun: dryRun)) { summary in
            var delivery = Delivery()
            if !dryRun {
                summary.add(try await verifyDevices(logger: logger))
                let backlogThrough = try await store.lastOutboxID()
                let stopwatch = ContinuousClock.now
                summary.alertsCarriedOver = try await resend(through: backlogThrough, delivery: &delivery, summary: &summary, logger: logger)
                summary.resendMilliseconds = Self.milliseconds(since: stopwatch)
            }
            try await plan(runID: runID, dryRun: dryRun, delivery: &delivery, summary: &summary, logger: logger, onPlanned: onPlanned)
            if !dryRun {
                let stopwatch = ContinuousClock.now
                try await retry(&delivery, summary: &summary, logger: logger)
                summary.deliveryMilliseconds += Self.milliseconds(since: stopwatch)
                try await store.purge(before: clock() - configuration.retentionSeconds)
                try await nightRecords?.purgeNights(endedBefore: clock() - configuration.nightRetentionSeconds)
                try await purgeUnsubscribedForecasts(logger: logger)
            }
        }
        if !dryRun {
            let store = self.store
            _ = await storeEnd("the run summary", logger: logger) { try await store.finishRun(summary) }
        }
        report(summary, logger: logger)
        // Its own step once the run is recorded: the run's figures and duration leave it out.
        if !dryRun, summary.status != .failed { await checkNights(logger: logger) }
        return summary
    }

    /// Drops cached forecasts of boxes nobody subscribes to any more (subscribe and
    /// unsubscribe churn would otherwise keep them for the whole retention), a batch of
    /// `forecastPurgeBatch` at a time so that writers never wait long behind it.
    func purgeUnsubscribedForecasts(logger: Logger) async throws {
        guard let forecastCache else { return }
        var purged = 0
        while true {
            try Task.checkCancellation()
            let batch = try await forecastCache.purgeUnsubscribed(limit: Self.forecastPurgeBatch)
            purged += batch
            if batch < Self.forecastPurgeBatch { break }
        }
        if purged > 0 { logger.info("purged cached forecasts of boxes nobody subscribes to", metadata: ["boxes": "\(purged)"]) }
    }

    static let forecastPurgeBatch = 1_000

    /// Runs a run's steps on `summary` and ends it: its status from its outcome, or from how
    /// the steps stopped (cancelled: interrupted; an error: failed), its finish and duration.
    func conclude(_ start: NotifyRunSummary, steps: (inout NotifyRunSummary) async throws -> Void) async -> NotifyRunSummary {
        let started = ContinuousClock.now
        var summary = start
        do {
            try await steps(&summary)
            summary.status = summary.outcome
            // Said at the level the run is logged at, and printed by `notify --once`.
            if summary.status != .completed, summary.error == nil { summary.error = summary.failureReason }
        } catch is CancellationError {
            summary.status = .interrupted
            summary.error = "cancelled"
        } catch {
            summary.status = .failed
            summary.error = String(describing: error)
        }
        summary.finishedAt = clock()
        summary.durationMilliseconds = Self.milliseconds(since: started)
        return summary
    }

    /// The run's metrics and its log line.
    func report(_ summary: NotifyRunSummary, logger: Logger) {
        // An interrupted run has always counted as failed here.
        let result = summary.status == .interrupted ? NotifyRunSummary.Status.failed.rawValue : summary.status.rawValue
        Counter(label: FrostboxMetrics.Name.notifyRuns, dimensions: [(FrostboxMetrics.Label.result, result)]).increment()
        Timer(label: FrostboxMetrics.Name.notifyRunDuration, dimensions: [(FrostboxMetrics.Label.result, result)])
            .recordMilliseconds(summary.durationMilliseconds)
        if !summary.dryRun {
            Gauge(label: FrostboxMetrics.Name.boxesLeftOut, dimensions: [(FrostboxMetrics.Label.reason, "budget")]).record(summary.boxesLeftOut)
        }
        if summary.status == .completed {
            logger.notice("notify run completed", metadata: ["summary": "\(summary.line)"])
        } else if summary.status == .degraded {
            logger.warning("notify run degraded: some boxes or pushes failed", metadata: ["summary": "\(summary.line)"])
        } else {
            logger.error("notify run did not complete", metadata: ["summary": "\(summary.line)"])
        }
    }

    // MARK: Planning

    /// Plans chunk by chunk; each chunk's alerts are queued, then delivered while the next
    /// chunk is fetched, planned and queued (one chunk's delivery at a time, so memory stays
    /// bounded by two chunks and the first alerts go out early). An entry is always durable in
    /// the outbox before it is sent.
    private func plan(
        runID: Int64, dryRun: Bool, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger,
        onPlanned: (@Sendable ([OutboxEntry]) async -> Void)?
    ) async throws {
        let stopwatch = ContinuousClock.now
        let boxes = try await store.boxesToNotify()
        summary.storeMilliseconds += Self.milliseconds(since: stopwatch)
        summary.boxes = boxes.count
        let chunkSize = max(1, configuration.boxesPerChunk)
        var next = 0
        try await planChunks(
            runID: runID, dryRun: dryRun, delivery: &delivery, summary: &summary, logger: logger, onPlanned: onPlanned,
            nextChunk: {
                guard next < boxes.count else { return nil }
                defer { next += chunkSize }
                return Array(boxes[next..<min(next + chunkSize, boxes.count)])
            },
            chunkStored: { _ in })
    }

    /// Plans the chunks `nextChunk` hands out until it has none; `chunkStored` is told once a
    /// chunk's alerts are in the outbox. Each chunk's alerts are queued, then delivered while
    /// the next chunk is fetched, planned and queued.
    func planChunks(
        runID: Int64, dryRun: Bool, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger,
        onPlanned: (@Sendable ([OutboxEntry]) async -> Void)?,
        nextChunk: () async throws -> [GeoBox]?, chunkStored: ([GeoBox]) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Round.self) { deliveries in
            // The entries of the chunk being delivered, until its round is taken in whole.
            var delivering: [OutboxEntry] = []
            /// Waits for the chunk being delivered, if any, and takes in its outcome.
            func settle() async throws {
                do {
                    guard let round = try await deliveries.next() else { return }
                    summary.deliveryMilliseconds += round.milliseconds
                    apply(round, to: &delivery, summary: &summary)
                    delivering = []
                } catch let cut as CutRound {
                    summary.deliveryMilliseconds += cut.round.milliseconds
                    apply(cut.round, to: &delivery, summary: &summary)
                    throw cut.error
                }
            }
            do {
                while true {
                    try Task.checkCancellation()
                    guard let chunk = try await nextChunk() else { break }
                    let stored = try await prepare(chunk, runID: runID, dryRun: dryRun, summary: &summary, onPlanned: onPlanned)
                    try await chunkStored(chunk)
                    guard !stored.isEmpty else { continue }
                    // The previous chunk's delivery ends before this one's starts.
                    try await settle()
                    // Told to stop: what is queued but not yet sent waits, durable, for the next run.
                    try Task.checkCancellation()
                    let blocked = delivery.blocked
                    deliveries.addTask { try await self.send(stored, blocked: blocked, logger: logger) }
                    delivering = stored
                }
                try await settle()
            } catch {
                // Planning failed while a chunk was being delivered (or the delivery itself did):
                // that delivery stops handing out pushes, what it came to is counted, and its
                // entries are kept as cut short (whichever it did not send stay pending).
                // Outcomes it could not record are the error that counts, as in `send`.
                var failure = error
                let cut = delivering
                deliveries.cancelAll()
                do {
                    try await settle()
                } catch let unrecorded as UnrecordedOutcomes {
                    failure = unrecorded
                } catch {
                    // Any other error of the stopped delivery: the one that stopped it goes on.
                }
                delivery.cutShort += cut
                throw failure
            }
        }
    }

    /// One chunk: its forecasts, fetch state, subscriptions and alerted events, the plan, and
    /// the outbox write. Returns the entries stored (none for a dry run: `onPlanned` sees them).
    private func prepare(
        _ chunk: [GeoBox], runID: Int64, dryRun: Bool, summary: inout NotifyRunSummary,
        onPlanned: (@Sendable ([OutboxEntry]) async -> Void)?
    ) async throws -> [OutboxEntry] {
        let runNow = clock()
        var stopwatch = ContinuousClock.now
        let batch = await forecasts.forecasts(for: chunk, now: runNow)
        summary.forecastMilliseconds += Self.milliseconds(since: stopwatch)
        summary.forecastRequests += batch.requestsMade
        summary.weightUsed += batch.weightUsed
        summary.forecastsFreshByRun += batch.currentByRun
        var failed: [GeoBox: String] = [:]
        for box in chunk where batch.forecasts[box] == nil {
            let failure = batch.failures[box]
            let reason = failure.map(Self.describe) ?? "no answer"
            if case .budgetExhausted = failure {
                summary.boxesLeftOut += 1
            } else {
                summary.boxesFailed += 1
                summary.firstBoxFailure = summary.firstBoxFailure ?? reason
            }
            failed[box] = reason
        }
        let withForecast = chunk.filter { batch.forecasts[$0] != nil }
        for box in withForecast {
            if batch.forecasts[box]?.source == .cache { summary.forecastsCached += 1 } else { summary.forecastsFetched += 1 }
        }

        stopwatch = ContinuousClock.now
        if !dryRun { try await store.recordFetches(succeeded: withForecast, failed: failed, at: runNow) }
        let places = try await store.places(in: withForecast)
        let alerted = try await store.alertedEvents(in: withForecast, now: runNow)
        summary.storeMilliseconds += Self.milliseconds(since: stopwatch)
        let ensembles = await ensembles(for: withForecast, places: places, now: runNow, summary: &summary)

        stopwatch = ContinuousClock.now
        var entries: [OutboxEntry] = []
        for box in withForecast {
            guard let forecast = batch.forecasts[box]?.forecast, let boxPlaces = places[box] else { continue }
            let plan = planner.plan(forecast: forecast, ensemble: ensembles[box], places: boxPlaces, alerted: alerted[box] ?? [], now: runNow)
            summary.verdicts += plan.verdictsComputed
            for alert in plan.alerts {
                var entry = OutboxEntry(event: alert.event, kind: alert.kind, notification: alert.notification(), createdAt: runNow)
                entry.frostStartsAt = alert.frostStartsAt
                entry.deviceKey = alert.deviceKey
                if case .hold(let until) = alert.timing { entry.notBefore = until }
                entries.append(entry)
            }
        }
        summary.planningMilliseconds += Self.milliseconds(since: stopwatch)

        if dryRun {
            summary.alertsPlanned += entries.count
            summary.alertsHeld += entries.count { $0.isHeld(at: runNow) }
            await onPlanned?(entries)
            return []
        }
        stopwatch = ContinuousClock.now
        let stored = try await store.enqueue(entries, runID: runID)
        try await keepNights(of: batch, ensembles: ensembles, stored: stored, now: runNow)
        summary.storeMilliseconds += Self.milliseconds(since: stopwatch)
        summary.alertsPlanned += stored.count
        Self.count(FrostboxMetrics.Name.alertsPlanned, stored)
        await onPlanned?(stored)
        // Held entries wait, durable, for a run after their quiet hours (`resend` releases them).
        let held = stored.filter { $0.isHeld(at: runNow) }
        guard !held.isEmpty else { return stored }
        summary.alertsHeld += held.count
        Self.count(FrostboxMetrics.Name.alertsHeld, held)
        return stored.filter { !$0.isHeld(at: runNow) }
    }

    /// The ensembles of the boxes with a subscription alerted by probability, asked for after
    /// the chunk's forecasts (so the budget covers the deterministic verdict first, never the
    /// reverse); a box left without one is judged by its forecast (`probabilityFallback`).
    private func ensembles(
        for boxes: [GeoBox], places: [GeoBox: [SubscribedPlace]], now: Int64, summary: inout NotifyRunSummary
    ) async -> [GeoBox: EnsembleForecast] {
        guard let ensembles else { return [:] }
        let wanting = boxes.filter { box in places[box]?.contains { planner.minProbability(for: $0.settings) > 0 } ?? false }
        guard !wanting.isEmpty else { return [:] }
        // The forecasts still to come in this run keep their weight: as much a box as those so far.
        let prepared = summary.forecastsCached + summary.forecastsFetched + summary.boxesFailed + summary.boxesLeftOut
        let forecastWeight = summary.weightUsed - summary.ensembleWeightUsed
        let reserve = prepared > 0 ? Double(max(0, summary.boxes - prepared)) * forecastWeight / Double(prepared) : 0
        let stopwatch = ContinuousClock.now
        let batch = await ensembles.ensembles(for: wanting, now: now, reserving: reserve)
        summary.forecastMilliseconds += Self.milliseconds(since: stopwatch)
        summary.forecastRequests += batch.requestsMade
        summary.weightUsed += batch.weightUsed
        summary.ensembleWeightUsed += batch.weightUsed
        summary.ensemblesFetched += batch.fetched
        summary.ensemblesCached += batch.ensembles.count - batch.fetched
        let fallback = wanting.count { batch.ensembles[$0] == nil }
        summary.probabilityFallback += fallback
        let counts = [("cache", batch.ensembles.count - batch.fetched), ("fetched", batch.fetched), ("fallback", fallback)]
        for (source, count) in counts where count > 0 {
            Counter(label: FrostboxMetrics.Name.ensembleBoxes, dimensions: [(FrostboxMetrics.Label.source, source)]).increment(by: count)
        }
        if batch.weightUsed > 0 { FloatingPointCounter(label: FrostboxMetrics.Name.ensembleWeight).increment(by: batch.weightUsed) }
        return batch.ensembles
    }

    static func describe(_ failure: ForecastFailure) -> String {
        switch failure {
        case .budgetExhausted: "left out: quota budget spent"
        case .rateLimited(let reason, _): "rate limited: \(reason)"
        case .remote(let status, let reason): "HTTP \(status): \(reason)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .timeout: "timeout"
        case .transport(let reason): "transport: \(reason)"
        }
    }

    // MARK: Helpers

    /// Counts entries into `name`, one increment per level (and failure class).
    static func count(_ name: String, _ entries: [OutboxEntry], failure: DeliveryFailureClass? = nil) {
        count(name, byLevel: levels(of: entries), failure: failure)
    }

    /// Counts into `name` the given counts by `level` label (and failure class).
    static func count(_ name: String, byLevel counts: [String: Int], failure: DeliveryFailureClass? = nil) {
        for (level, count) in counts where count > 0 {
            var dimensions = [(FrostboxMetrics.Label.level, level)]
            if let failure { dimensions.append((FrostboxMetrics.Label.failureClass, failure.rawValue)) }
            Counter(label: name, dimensions: dimensions).increment(by: count)
        }
    }

    /// How many of `entries` there are by `level` label.
    static func levels(of entries: some Sequence<OutboxEntry>) -> [String: Int] {
        var counts: [String: Int] = [:]
        for entry in entries { counts[level(of: entry), default: 0] += 1 }
        return counts
    }

    /// The `level` label of an entry's alert metrics.
    static func level(of entry: OutboxEntry) -> String {
        entry.kind == .allClear ? "all-clear" : entry.event.level.description
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((ContinuousClock.now - start).inMilliseconds)
    }
}
