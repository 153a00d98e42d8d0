import FrostboxCore
import Logging
import Metrics

/// The work of one notify run, without the scheduling:
///
/// 1. resend the outbox entries earlier runs left pending (a crash, temporary failures), with
///    their original apns-id and collapse-id;
/// 2. for the distinct subscribed boxes, chunk by chunk (failed and left-out boxes first): get
///    forecasts, compute one verdict per box and distinct rule, plan one alert per device and
///    event, and queue the alerts in the outbox in the transaction that marks them alerted;
/// 3. deliver the new entries with bounded concurrency, retrying temporary failures with
///    backoff, pruning dead tokens;
/// 4. purge what has aged out, and store the summary.
struct NotifyRun: Sendable {
    let store: any NotifierStore
    let forecasts: any ForecastProvider
    let push: any PushSender
    let planner: AlertPlanner
    let configuration: NotifierSettings
    let logger: Logger
    /// UTC epoch seconds now.
    let clock: @Sendable () -> Int64
    let sleep: @Sendable (Duration) async throws -> Void
    /// Told how many pushes of a round were sends of entries sent before.
    let resent: @Sendable (Int) -> Void

    func perform(runID: Int64, dryRun: Bool, onPlanned: (@Sendable ([OutboxEntry]) async -> Void)?) async -> NotifyRunSummary {
        let started = ContinuousClock.now
        var summary = NotifyRunSummary(id: runID, startedAt: clock(), dryRun: dryRun)
        var logger = self.logger
        logger[metadataKey: "run"] = "\(runID)"
        do {
            var delivery = Delivery()
            if !dryRun {
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
            }
            summary.status = summary.outcome
        } catch is CancellationError {
            summary.status = .interrupted
            summary.error = "cancelled"
        } catch {
            summary.status = .failed
            summary.error = String(describing: error)
        }
        summary.finishedAt = clock()
        summary.durationMilliseconds = Self.milliseconds(since: started)
        if !dryRun {
            do {
                try await store.finishRun(summary)
            } catch {
                logger.error("could not store the run summary", metadata: ["error": "\(error)"])
            }
        }
        // An interrupted run has always counted as failed here.
        let result = summary.status == .interrupted ? NotifyRunSummary.Status.failed.rawValue : summary.status.rawValue
        Counter(label: FrostboxMetrics.Name.notifyRuns, dimensions: [(FrostboxMetrics.Label.result, result)]).increment()
        Timer(label: FrostboxMetrics.Name.notifyRunDuration, dimensions: [(FrostboxMetrics.Label.result, result)])
            .recordMilliseconds(summary.durationMilliseconds)
        if summary.status == .completed {
            logger.notice("notify run completed", metadata: ["summary": "\(summary.line)"])
        } else if summary.status == .degraded {
            logger.warning("notify run degraded: some boxes or pushes failed", metadata: ["summary": "\(summary.line)"])
        } else {
            logger.error("notify run did not complete", metadata: ["summary": "\(summary.line)"])
        }
        return summary
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
        try await withThrowingTaskGroup(of: Round.self) { deliveries in
            var delivering = false
            var start = 0
            while start < boxes.count {
                try Task.checkCancellation()
                let chunk = Array(boxes[start..<min(start + chunkSize, boxes.count)])
                start += chunkSize
                let stored = try await prepare(chunk, runID: runID, dryRun: dryRun, summary: &summary, onPlanned: onPlanned)
                guard !stored.isEmpty else { continue }
                // The previous chunk's delivery ends before this one's starts.
                if delivering, let round = try await deliveries.next() {
                    summary.deliveryMilliseconds += round.milliseconds
                    apply(round, to: &delivery, summary: &summary)
                }
                // Told to stop: what is queued but not yet sent waits, durable, for the next run.
                try Task.checkCancellation()
                let blocked = delivery.blockedTopics
                deliveries.addTask { try await self.send(stored, blockedTopics: blocked, logger: logger) }
                delivering = true
            }
            if delivering, let round = try await deliveries.next() {
                summary.deliveryMilliseconds += round.milliseconds
                apply(round, to: &delivery, summary: &summary)
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
        var failed: [GeoBox: String] = [:]
        for box in chunk where batch.forecasts[box] == nil {
            let failure = batch.failures[box]
            if case .budgetExhausted = failure { summary.boxesLeftOut += 1 } else { summary.boxesFailed += 1 }
            failed[box] = failure.map(Self.describe) ?? "no answer"
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

        stopwatch = ContinuousClock.now
        var entries: [OutboxEntry] = []
        for box in withForecast {
            guard let forecast = batch.forecasts[box]?.forecast, let boxPlaces = places[box] else { continue }
            let plan = planner.plan(forecast: forecast, places: boxPlaces, alerted: alerted[box] ?? [], now: runNow)
            summary.verdicts += plan.verdictsComputed
            for alert in plan.alerts {
                entries.append(
                    OutboxEntry(event: alert.event, kind: alert.kind, notification: alert.notification(), createdAt: runNow))
            }
        }
        summary.planningMilliseconds += Self.milliseconds(since: stopwatch)

        if dryRun {
            summary.alertsPlanned += entries.count
            await onPlanned?(entries)
            return []
        }
        stopwatch = ContinuousClock.now
        let stored = try await store.enqueue(entries, runID: runID)
        summary.storeMilliseconds += Self.milliseconds(since: stopwatch)
        summary.alertsPlanned += stored.count
        Self.count(FrostboxMetrics.Name.alertsPlanned, stored)
        await onPlanned?(stored)
        return stored
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

    // MARK: Delivery

    /// What delivery carries from round to round within a run.
    struct Delivery {
        /// Entries that failed temporarily and wait for the next round.
        var retry: [OutboxEntry] = []
        /// Temporary failures not held for a retry this run (over `maximumHeldRetries`), by
        /// metric level; they stay pending.
        var notHeld: [String: Int] = [:]
        /// Apps whose credentials APNs refused this run (topic; "" for the default app).
        var blockedTopics = Set<String>()
    }

    /// Most temporarily failed entries kept in memory for in-run retries; the rest wait in the
    /// outbox for the next run.
    static let maximumHeldRetries = 10_000

    /// Sends the entries earlier runs left pending (`id <= through`), page by page, with their
    /// original apns-id and collapse-id. Returns how many there were.
    private func resend(through: Int64, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws -> Int {
        var cursor: Int64 = 0
        var found = 0
        while true {
            try Task.checkCancellation()
            let page = try await store.pendingOutbox(after: cursor, through: through, limit: max(1, configuration.outboxPageSize))
            guard let last = page.last else { break }
            cursor = last.id
            found += page.count
            try await sendRound(page, delivery: &delivery, summary: &summary, logger: logger)
        }
        if found > 0 { logger.notice("resent entries left pending by earlier runs", metadata: ["entries": "\(found)"]) }
        return found
    }

    /// Retries temporary failures in rounds with doubling backoff, up to `attemptsPerRun`
    /// sends per entry; what still fails stays pending for the next run.
    private func retry(_ delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws {
        var attempt = 1
        var backoff = configuration.retryBackoff
        while !delivery.retry.isEmpty, attempt < configuration.attemptsPerRun {
            attempt += 1
            let entries = delivery.retry
            delivery.retry = []
            logger.info("retrying temporary failures", metadata: ["entries": "\(entries.count)", "attempt": "\(attempt)", "after": "\(backoff)"])
            try await sleep(backoff)
            backoff = min(backoff * 2, configuration.maximumRetryBackoff)
            try await sendRound(entries, delivery: &delivery, summary: &summary, logger: logger)
        }
        let carried = delivery.retry.count + delivery.notHeld.values.reduce(0, +)
        if carried > 0 {
            summary.failed[.temporary, default: 0] += carried
            // The metric counts what the summary counts, held in memory or not.
            Self.count(FrostboxMetrics.Name.alertsFailed, delivery.retry, failure: .temporary)
            for (level, count) in delivery.notHeld {
                Counter(label: FrostboxMetrics.Name.alertsFailed, dimensions: [
                    (FrostboxMetrics.Label.level, level), (FrostboxMetrics.Label.failureClass, DeliveryFailureClass.temporary.rawValue),
                ]).increment(by: count)
            }
            logger.warning("temporary failures carried over to the next run", metadata: ["entries": "\(carried)"])
        }
        delivery.retry = []
        delivery.notHeld = [:]
    }

    private struct Sent: Sendable {
        var entry: OutboxEntry
        var outcome: PushOutcome
        /// What to store; nil when it is stored already.
        var recorded: OutboxOutcome?
        var pruned: Bool
    }

    /// What one round of sends came to, taken into the run by `apply`.
    struct Round: Sendable {
        var delivered: [OutboxEntry] = []
        var failures: [(OutboxEntry, DeliveryFailureClass)] = []
        var retry: [OutboxEntry] = []
        var blockedTopics = Set<String>()
        var pruned = 0
        var resends = 0
        var milliseconds = 0
    }

    /// One send of each entry (`send`), taken into the run at once.
    private func sendRound(_ entries: [OutboxEntry], delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        apply(try await send(entries, blockedTopics: delivery.blockedTopics, logger: logger), to: &delivery, summary: &summary)
    }

    /// Takes a round's outcomes into the summary, the metrics and what delivery carries on
    /// (its time is the caller's to count: resends and retries have their own clocks).
    private func apply(_ round: Round, to delivery: inout Delivery, summary: inout NotifyRunSummary) {
        if round.resends > 0 {
            Counter(label: FrostboxMetrics.Name.pushResends).increment(by: round.resends)
            self.resent(round.resends)
        }
        summary.alertsDelivered += round.delivered.count
        Self.count(FrostboxMetrics.Name.alertsDelivered, round.delivered)
        for (entry, failure) in round.failures {
            summary.failed[failure, default: 0] += 1
            Self.count(FrostboxMetrics.Name.alertsFailed, [entry], failure: failure)
        }
        summary.tokensPruned += round.pruned
        if round.pruned > 0 { Counter(label: FrostboxMetrics.Name.tokensPruned).increment(by: round.pruned) }
        delivery.blockedTopics.formUnion(round.blockedTopics)
        let room = max(0, Self.maximumHeldRetries - delivery.retry.count)
        delivery.retry += round.retry.prefix(room)
        for entry in round.retry.dropFirst(room) { delivery.notHeld[Self.level(of: entry), default: 0] += 1 }
    }

    /// One send of each entry, at most `concurrency` at once, skipping apps in `blockedTopics`
    /// (and any whose credentials are refused during the round). Outcomes are stored in
    /// grouped commits while sending goes on (`OutcomeLog`), all of them durable before the
    /// round returns; dead tokens are pruned; temporary failures come back for a retry.
    private func send(_ entries: [OutboxEntry], blockedTopics: Set<String>, logger: Logger) async throws -> Round {
        let started = ContinuousClock.now
        guard !entries.isEmpty else { return Round() }
        var retry: [OutboxEntry] = []
        var blockedTopics = blockedTopics
        var delivered: [OutboxEntry] = []
        var failures: [(OutboxEntry, DeliveryFailureClass)] = []
        var pruned = 0
        var resends = 0
        let concurrency = max(1, configuration.concurrency)
        let store = self.store
        let push = self.push
        let clock = self.clock
        let outcomes = OutcomeLog(store: store)

        func handle(_ sent: Sent) {
            let token = sent.entry.token.redacted
            switch sent.outcome {
            case .delivered:
                delivered.append(sent.entry)
            case .temporaryFailure(let reason):
                logger.debug("push failed temporarily", metadata: ["token": "\(token)", "reason": "\(reason)"])
                var entry = sent.entry
                entry.attempts += 1
                retry.append(entry)
            case .invalidToken(let reason, _):
                logger.info("dead device token", metadata: ["token": "\(token)", "reason": "\(reason)", "pruned": "\(sent.pruned)"])
                failures.append((sent.entry, .invalidToken))
                if sent.pruned { pruned += 1 }
            case .permanentFailure(let status, let reason):
                logger.warning("push refused", metadata: ["token": "\(token)", "status": "\(status)", "reason": "\(reason)"])
                failures.append((sent.entry, .permanent))
            case .authFailure(let reason):
                logger.error("APNs refused our credentials; holding this app's alerts", metadata: ["topic": "\(sent.entry.notification.topic ?? "default")", "reason": "\(reason)"])
                failures.append((sent.entry, .auth))
                blockedTopics.insert(sent.entry.notification.topic ?? "")
            }
            if let recorded = sent.recorded { outcomes.add(sent.entry.id, recorded) }
        }

        do {
            try await withThrowingTaskGroup(of: Sent.self) { group in
                var inFlight = 0
                for entry in entries {
                    if let expiration = entry.notification.expiration, expiration <= clock() {
                        outcomes.add(entry.id, .failed(.expired, reason: "frost window ended before delivery", at: clock()))
                        failures.append((entry, .expired))
                        continue
                    }
                    if inFlight >= concurrency, let sent = try await group.next() {
                        inFlight -= 1
                        handle(sent)
                    }
                    // Checked after waiting for a slot, so an auth failure just in stops the next send.
                    // A held entry is not sent (no attempt counted) and stays pending; it is
                    // counted as an auth failure, like the one that stopped its app.
                    if blockedTopics.contains(entry.notification.topic ?? "") {
                        failures.append((entry, .auth))
                        continue
                    }
                    // Counted from the entry's own history: sent before, in this run or an earlier one.
                    if entry.attempts > 0 { resends += 1 }
                    group.addTask {
                        let sentAt = clock()
                        let outcome = await push.send(entry.notification)
                        switch outcome {
                        case .delivered(let apnsID):
                            return Sent(entry: entry, outcome: outcome, recorded: .delivered(at: clock(), apnsID: apnsID), pruned: false)
                        case .invalidToken(let reason, let unregisteredAtMilliseconds):
                            // Recorded before the prune, so a device that is kept still shows why
                            // its entry ended; a pruned device takes its entries with it.
                            try await store.record(.failed(.invalidToken, reason: reason, at: clock()), for: entry.id)
                            // Keep a device that registered again after APNs saw the token die.
                            let cutoff = unregisteredAtMilliseconds.map { $0 / 1000 } ?? sentAt
                            let pruned = try await store.pruneDevice(entry.token, registeredNoLaterThan: cutoff)
                            return Sent(entry: entry, outcome: outcome, recorded: nil, pruned: pruned)
                        case .permanentFailure(let status, let reason):
                            return Sent(entry: entry, outcome: outcome, recorded: .failed(.permanent, reason: "\(status) \(reason)", at: clock()), pruned: false)
                        case .authFailure(let reason):
                            return Sent(entry: entry, outcome: outcome, recorded: .failed(.auth, reason: reason, at: clock()), pruned: false)
                        case .temporaryFailure(let reason):
                            return Sent(entry: entry, outcome: outcome, recorded: .failed(.temporary, reason: reason, at: clock()), pruned: false)
                        }
                    }
                    inFlight += 1
                }
                while let sent = try await group.next() { handle(sent) }
            }
        } catch {
            // What was sent is still written before the error goes up.
            try? await outcomes.finish()
            throw error
        }
        try await outcomes.finish()
        return Round(
            delivered: delivered, failures: failures, retry: retry, blockedTopics: blockedTopics, pruned: pruned,
            resends: resends, milliseconds: Self.milliseconds(since: started))
    }

    // MARK: Helpers

    /// Counts entries into `name`, one increment per level (and failure class).
    static func count(_ name: String, _ entries: [OutboxEntry], failure: DeliveryFailureClass? = nil) {
        guard !entries.isEmpty else { return }
        var byLevel: [String: Int] = [:]
        for entry in entries {
            byLevel[level(of: entry), default: 0] += 1
        }
        for (level, count) in byLevel {
            var dimensions = [(FrostboxMetrics.Label.level, level)]
            if let failure { dimensions.append((FrostboxMetrics.Label.failureClass, failure.rawValue)) }
            Counter(label: name, dimensions: dimensions).increment(by: count)
        }
    }

    /// The `level` label of an entry's alert metrics.
    static func level(of entry: OutboxEntry) -> String {
        entry.kind == .allClear ? "all-clear" : entry.event.level.description
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((ContinuousClock.now - start).inMilliseconds)
    }
}

