import FrostboxCore
import Logging
import Metrics

/// Delivery within a run: rounds of sends with bounded concurrency, their outcomes written in
/// grouped commits, dead tokens pruned, temporary failures retried with backoff.
extension NotifyRun {
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

    /// What one round of sends came to, taken into the run by `apply`. Delivered and failed
    /// entries are kept as counts by metric level: a round of a million pushes holds no
    /// entry it is done with.
    struct Round: Sendable {
        var delivered: [String: Int] = [:]
        var failed: [DeliveryFailureClass: [String: Int]] = [:]
        var retry: [OutboxEntry] = []
        var blockedTopics = Set<String>()
        var pruned = 0
        var resends = 0
        var milliseconds = 0

        mutating func fail(_ entry: OutboxEntry, _ failure: DeliveryFailureClass) {
            failed[failure, default: [:]][NotifyRun.level(of: entry), default: 0] += 1
        }

        /// Counts what became of one send: delivered, to retry, or failed by class (an auth
        /// failure also holds its app's other alerts for the rest of the round).
        fileprivate mutating func take(_ sent: Sent, logger: Logger) {
            let entry = sent.entry
            switch sent.outcome {
            case .delivered:
                delivered[NotifyRun.level(of: entry), default: 0] += 1
            case .temporaryFailure(let reason):
                logger.debug("push failed temporarily", metadata: ["token": "\(entry.token.redacted)", "reason": "\(reason)"])
                var again = entry
                again.attempts += 1
                retry.append(again)
            case .invalidToken(let reason, _):
                logger.info("dead device token", metadata: ["token": "\(entry.token.redacted)", "reason": "\(reason)", "pruned": "\(sent.pruned)"])
                fail(entry, .invalidToken)
                if sent.pruned { pruned += 1 }
            case .permanentFailure(let status, let reason):
                logger.warning("push refused", metadata: ["token": "\(entry.token.redacted)", "status": "\(status)", "reason": "\(reason)"])
                fail(entry, .permanent)
            case .authFailure(let reason):
                logger.error(
                    "APNs refused our credentials; holding this app's alerts",
                    metadata: ["topic": "\(entry.notification.topic ?? "default")", "reason": "\(reason)"])
                fail(entry, .auth)
                blockedTopics.insert(entry.notification.topic ?? "")
            }
        }
    }

    /// One send, as a round's task reports it.
    fileprivate struct Sent: Sendable {
        var entry: OutboxEntry
        var outcome: PushOutcome
        /// What to store; nil when it is stored already.
        var recorded: OutboxOutcome?
        var pruned: Bool
    }

    /// Sends the entries earlier runs left pending (`id <= through`), page by page, with their
    /// original apns-id and collapse-id. Returns how many there were.
    func resend(through: Int64, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws -> Int {
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
    func retry(_ delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws {
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
        // Held in memory or not, every carried entry is counted, in the summary and the metric.
        var carried = delivery.notHeld
        for (level, count) in Self.levels(of: delivery.retry) { carried[level, default: 0] += count }
        let total = carried.values.reduce(0, +)
        if total > 0 {
            summary.failed[.temporary, default: 0] += total
            Self.count(FrostboxMetrics.Name.alertsFailed, byLevel: carried, failure: .temporary)
            logger.warning("temporary failures carried over to the next run", metadata: ["entries": "\(total)"])
        }
        delivery.retry = []
        delivery.notHeld = [:]
    }

    /// One send of each entry (`send`), taken into the run at once.
    func sendRound(_ entries: [OutboxEntry], delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        apply(try await send(entries, blockedTopics: delivery.blockedTopics, logger: logger), to: &delivery, summary: &summary)
    }

    /// Takes a round's outcomes into the summary, the metrics and what delivery carries on
    /// (its time is the caller's to count: resends and retries have their own clocks).
    func apply(_ round: Round, to delivery: inout Delivery, summary: inout NotifyRunSummary) {
        if round.resends > 0 {
            Counter(label: FrostboxMetrics.Name.pushResends).increment(by: round.resends)
            resent(round.resends)
        }
        summary.alertsDelivered += round.delivered.values.reduce(0, +)
        Self.count(FrostboxMetrics.Name.alertsDelivered, byLevel: round.delivered)
        for (failure, byLevel) in round.failed {
            summary.failed[failure, default: 0] += byLevel.values.reduce(0, +)
            Self.count(FrostboxMetrics.Name.alertsFailed, byLevel: byLevel, failure: failure)
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
    func send(_ entries: [OutboxEntry], blockedTopics: Set<String>, logger: Logger) async throws -> Round {
        let started = ContinuousClock.now
        guard !entries.isEmpty else { return Round() }
        var round = Round(blockedTopics: blockedTopics)
        let concurrency = max(1, configuration.concurrency)
        let store = self.store
        let push = self.push
        let clock = self.clock
        let outcomes = OutcomeLog(store: store)

        func handle(_ sent: Sent) {
            round.take(sent, logger: logger)
            if let recorded = sent.recorded { outcomes.add(sent.entry.id, recorded) }
        }

        do {
            try await withThrowingTaskGroup(of: Sent.self) { group in
                var inFlight = 0
                for entry in entries {
                    if let expiration = entry.notification.expiration, expiration <= clock() {
                        outcomes.add(entry.id, .failed(.expired, reason: "frost window ended before delivery", at: clock()))
                        round.fail(entry, .expired)
                        continue
                    }
                    if inFlight >= concurrency, let sent = try await group.next() {
                        inFlight -= 1
                        handle(sent)
                    }
                    // Checked after waiting for a slot, so an auth failure just in stops the next send.
                    // A held entry is not sent (no attempt counted) and stays pending; it is
                    // counted as an auth failure, like the one that stopped its app.
                    if round.blockedTopics.contains(entry.notification.topic ?? "") {
                        round.fail(entry, .auth)
                        continue
                    }
                    // Counted from the entry's own history: sent before, in this run or an earlier one.
                    if entry.attempts > 0 { round.resends += 1 }
                    group.addTask { try await Self.deliver(entry, push: push, store: store, clock: clock) }
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
        round.milliseconds = Self.milliseconds(since: started)
        return round
    }

    /// Sends one entry; a dead token's outcome is recorded and its device pruned here (unless
    /// it registered again after the gateway saw the token die), the rest by the round.
    private static func deliver(
        _ entry: OutboxEntry, push: any PushSender, store: any NotifierStore, clock: @escaping @Sendable () -> Int64
    ) async throws -> Sent {
        let sentAt = clock()
        let outcome = await push.send(entry.notification)
        guard case .invalidToken(let reason, let unregisteredAtMilliseconds) = outcome else {
            return Sent(entry: entry, outcome: outcome, recorded: Self.recorded(outcome, at: clock()), pruned: false)
        }
        // Recorded before the prune, so a device that is kept still shows why its entry ended;
        // a pruned device takes its entries with it.
        try await store.record(.failed(.invalidToken, reason: reason, at: clock()), for: entry.id)
        let cutoff = unregisteredAtMilliseconds.map { $0 / 1000 } ?? sentAt
        let pruned = try await store.pruneDevice(entry.token, registeredNoLaterThan: cutoff)
        return Sent(entry: entry, outcome: outcome, recorded: nil, pruned: pruned)
    }

    /// What the outbox keeps of a send's outcome at `at`.
    static func recorded(_ outcome: PushOutcome, at: Int64) -> OutboxOutcome {
        switch outcome {
        case .delivered(let apnsID): .delivered(at: at, apnsID: apnsID)
        case .invalidToken(let reason, _): .failed(.invalidToken, reason: reason, at: at)
        case .permanentFailure(let status, let reason): .failed(.permanent, reason: "\(status) \(reason)", at: at)
        case .authFailure(let reason): .failed(.auth, reason: reason, at: at)
        case .temporaryFailure(let reason): .failed(.temporary, reason: reason, at: at)
        }
    }
}
