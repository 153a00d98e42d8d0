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
        /// The same, by platform.
        var notHeldByPlatform: [DevicePlatform: Int] = [:]
        /// Apps whose credentials their gateway refused this run.
        var blocked = Set<PushDestination>()
        /// The entries of rounds an error cut short: some may not have been sent, or sent and
        /// answered without the answer taken in. They stay pending in the outbox; a shared
        /// run's part that resumes after the error sends those still pending again (a run
        /// that ends on the error leaves them to the next run).
        var cutShort: [OutboxEntry] = []
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
        var blocked = Set<PushDestination>()
        var pruned = 0
        /// Delivered and finally failed entries by platform.
        var byPlatform = PlatformDeliveries()
        var resends = 0
        var milliseconds = 0
        /// Held entries sent now that their quiet hours are over, by metric level.
        var released: [String: Int] = [:]
        /// Held entries dropped because their frost had begun, by metric level.
        var heldExpired: [String: Int] = [:]
        /// The reason of the round's first failed send (temporary, refused or credentials).
        var firstFailure: String?

        mutating func fail(_ entry: OutboxEntry, _ failure: DeliveryFailureClass) {
            failed[failure, default: [:]][NotifyRun.level(of: entry), default: 0] += 1
            byPlatform.failed(entry.notification.platform)
        }

        /// Counts what became of one send: delivered, to retry, or failed by class (an auth
        /// failure also holds its app's other alerts for the rest of the round).
        fileprivate mutating func take(_ sent: Sent, logger: Logger) {
            let entry = sent.entry
            switch sent.outcome {
            case .delivered:
                delivered[NotifyRun.level(of: entry), default: 0] += 1
                byPlatform.delivered(entry.notification.platform)
            case .temporaryFailure(let reason):
                logger.debug("push failed temporarily", metadata: ["token": "\(entry.token.redacted)", "reason": "\(reason)"])
                firstFailure = firstFailure ?? reason
                var again = entry
                again.attempts += 1
                retry.append(again)
            case .invalidToken(let reason, _):
                logger.info("dead device token", metadata: ["token": "\(entry.token.redacted)", "reason": "\(reason)", "pruned": "\(sent.pruned)"])
                fail(entry, .invalidToken)
                if sent.pruned { pruned += 1 }
            case .permanentFailure(let status, let reason):
                logger.warning("push refused", metadata: ["token": "\(entry.token.redacted)", "status": "\(status)", "reason": "\(reason)"])
                firstFailure = firstFailure ?? "\(status) \(reason)"
                fail(entry, .permanent)
            case .authFailure(let reason):
                let destination = entry.notification.destination
                if !blocked.contains(destination) {
                    logger.error(
                        "the push gateway refused our credentials; holding this app's alerts",
                        metadata: ["app": "\(destination)", "reason": "\(reason)"])
                }
                firstFailure = firstFailure ?? reason
                fail(entry, .auth)
                blocked.insert(destination)
            }
        }
    }

    /// A round that ended with `error`, and what it had come to by then (counted into the run
    /// before the error goes on: a failed run still says what it delivered).
    struct CutRound: Error {
        var round: Round
        var error: any Error
    }

    /// One send, as a chunk's task reports it (its outcome already stored).
    fileprivate struct Sent: Sendable {
        var entry: OutboxEntry
        var outcome: PushOutcome
        var pruned: Bool
    }

    /// What one chunk came to: every send whose outcome is stored or in the outcome log, and
    /// the store's error that cut it short, if one did. Returned, not thrown, so that a round
    /// an error cuts still counts all that its chunks sent.
    fileprivate struct ChunkResult: Sendable {
        var sent: [Sent] = []
        var error: (any Error)?
    }

    /// Sends the entries earlier runs left pending (`id <= through`), page by page, with their
    /// original apns-id and collapse-id. Returns how many there were.
    func resend(through: Int64, delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws -> Int {
        var cursor: Int64 = 0
        var found = 0
        while true {
            try Task.checkCancellation()
            let page = try await store.pendingOutbox(
                after: cursor, through: through, limit: max(1, configuration.outboxPageSize), dueBy: clock())
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
        for entry in delivery.retry { summary.byPlatform.failed(entry.notification.platform) }
        for (platform, count) in delivery.notHeldByPlatform { summary.byPlatform.failed(platform, count) }
        let total = carried.values.reduce(0, +)
        if total > 0 {
            summary.failed[.temporary, default: 0] += total
            Self.count(FrostboxMetrics.Name.alertsFailed, byLevel: carried, failure: .temporary)
            logger.warning("temporary failures carried over to the next run", metadata: ["entries": "\(total)"])
        }
        delivery.retry = []
        delivery.notHeld = [:]
        delivery.notHeldByPlatform = [:]
    }

    /// One send of each entry (`send`), taken into the run at once (a cut round too, before
    /// its error goes on).
    func sendRound(_ entries: [OutboxEntry], delivery: inout Delivery, summary: inout NotifyRunSummary, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        do {
            apply(try await send(entries, blocked: delivery.blocked, logger: logger), to: &delivery, summary: &summary)
        } catch let cut as CutRound {
            apply(cut.round, to: &delivery, summary: &summary)
            delivery.cutShort += entries
            throw cut.error
        }
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
        summary.alertsReleased += round.released.values.reduce(0, +)
        Self.count(FrostboxMetrics.Name.alertsReleased, byLevel: round.released)
        summary.alertsHeldExpired += round.heldExpired.values.reduce(0, +)
        Self.count(FrostboxMetrics.Name.alertsHeldExpired, byLevel: round.heldExpired)
        summary.tokensPruned += round.pruned
        summary.byPlatform.add(round.byPlatform)
        summary.firstPushFailure = summary.firstPushFailure ?? round.firstFailure
        if round.pruned > 0 { Counter(label: FrostboxMetrics.Name.tokensPruned).increment(by: round.pruned) }
        delivery.blocked.formUnion(round.blocked)
        let room = max(0, Self.maximumHeldRetries - delivery.retry.count)
        delivery.retry += round.retry.prefix(room)
        for entry in round.retry.dropFirst(room) {
            delivery.notHeld[Self.level(of: entry), default: 0] += 1
            delivery.notHeldByPlatform[entry.notification.platform, default: 0] += 1
        }
    }

    /// One send of each entry, handed to the push port in chunks with at most `concurrency`
    /// pushes outstanding (two chunks of half that, so the port always has the next chunk
    /// while the last answers of one come in), skipping apps in `blocked` (and any whose
    /// credentials are refused during the round). Outcomes are stored in grouped commits while
    /// sending goes on (`OutcomeLog`), all of them durable before the round returns; dead
    /// tokens are pruned; temporary failures come back for a retry. A cancelled round hands
    /// over no further chunk and waits for the answers of those handed over. A round that
    /// fails throws `CutRound`: what it had come to, and the error (the outcome log's first,
    /// since that one leaves outcomes unrecorded).
    func send(_ entries: [OutboxEntry], blocked: Set<PushDestination>, logger: Logger) async throws -> Round {
        let started = ContinuousClock.now
        guard !entries.isEmpty else { return Round() }
        var round = Round(blocked: blocked)
        let windows = configuration.concurrency >= 2 ? 2 : 1
        let chunkSize = max(1, configuration.concurrency / windows)
        let store = self.store
        let push = self.push
        let clock = self.clock
        // Outcomes the database refuses for a while (a failover) are kept and written again;
        // a push counts against `concurrency` from the moment it is handed out until its
        // outcome is durable, so a run that loses its database (at any moment, in flight or
        // answered) leaves at most that many sent and unrecorded for a later run to send again.
        let outcomes = OutcomeLog(store: store, outageWindow: configuration.endRetryWindow, sleep: sleep)
        let unrecordedBound = max(1, configuration.concurrency)
        var next = entries.startIndex

        // The next chunk to hand over: expired entries end here, a stopped app's wait.
        func nextChunk() -> [OutboxEntry] {
            var chunk: [OutboxEntry] = []
            chunk.reserveCapacity(chunkSize)
            let now = clock()
            while chunk.count < chunkSize, next < entries.endIndex {
                let entry = entries[next]
                next += 1
                // A held entry whose frost began while it waited is held-expired, even when its
                // frost window has ended too (a delivery window may open only the next day).
                if entry.notBefore != nil, !DeliveryTiming.heldAlertStillHelps(at: now, frostStartsAt: entry.frostStartsAt, windowEnd: nil) {
                    outcomes.add(entry.id, .failed(.expired, reason: OutboxEntry.heldExpired, at: now))
                    round.fail(entry, .expired)
                    round.heldExpired[Self.level(of: entry), default: 0] += 1
                    continue
                }
                if let expiration = entry.notification.expiration, expiration <= now {
                    outcomes.add(entry.id, .failed(.expired, reason: "frost window ended before delivery", at: now))
                    round.fail(entry, .expired)
                    continue
                }
                // A held entry is not sent (no attempt counted) and stays pending; it is
                // counted as an auth failure, like the one that stopped its app.
                if round.blocked.contains(entry.notification.destination) {
                    round.fail(entry, .auth)
                    continue
                }
                // Counted from the entry's own history: sent before, in this run or an earlier one.
                if entry.attempts > 0 { round.resends += 1 }
                if entry.notBefore != nil, entry.attempts == 0 { round.released[Self.level(of: entry), default: 0] += 1 }
                chunk.append(entry)
            }
            return chunk
        }

        // The first error of the round: no chunk is handed out after it, and every chunk handed
        // out before it is still waited for and counted.
        var cut: (any Error)?
        await withTaskGroup(of: ChunkResult.self) { group in
            var inFlight = 0
            func takeChunk(_ result: ChunkResult) {
                for one in result.sent { round.take(one, logger: logger) }
                if cut == nil, let error = result.error { cut = error }
            }
            while next < entries.endIndex, cut == nil, !Task.isCancelled {
                if inFlight >= windows, let result = await group.next() {
                    inFlight -= 1
                    takeChunk(result)
                    if cut != nil { break }
                }
                do {
                    try await outcomes.reserve(chunkSize, bound: unrecordedBound)
                } catch {
                    cut = error
                    break
                }
                // Cancelled while waiting for answers or room: nothing more is handed out.
                if Task.isCancelled {
                    outcomes.release(chunkSize)
                    break
                }
                // Taken after waiting for room, so an auth failure just in holds the next chunk.
                let chunk = nextChunk()
                outcomes.release(chunkSize - chunk.count)
                guard !chunk.isEmpty else { continue }
                group.addTask { await Self.deliver(chunk, push: push, store: store, outcomes: outcomes, clock: clock) }
                inFlight += 1
            }
            while let result = await group.next() { takeChunk(result) }
        }
        if let cut {
            // What was sent is still written before the error goes up; outcomes that cannot be
            // written are the error that counts (it ends the run failed, never resumed).
            var failure = cut
            do { try await outcomes.finish() } catch { failure = error }
            round.milliseconds = Self.milliseconds(since: started)
            throw CutRound(round: round, error: failure)
        }
        round.milliseconds = Self.milliseconds(since: started)
        do {
            try await outcomes.finish()
        } catch {
            throw CutRound(round: round, error: error)
        }
        return round
    }

    /// Hands one chunk to the push port and takes its outcomes as they come: each is added to
    /// `outcomes` at once; a dead token's is recorded and its device pruned here (unless it
    /// registered again after the gateway saw the token die). A cancelled run stops the
    /// port's retries but still takes every answer the port gives. A store error while
    /// recording a dead token leaves that entry and the chunk's later dead tokens pending
    /// (uncounted; the next run sends them again) and comes back with every other send.
    private static func deliver(
        _ chunk: [OutboxEntry], push: any PushSender, store: any NotifierStore, outcomes: OutcomeLog<(id: Int64, outcome: OutboxOutcome)>,
        clock: @escaping @Sendable () -> Int64
    ) async -> ChunkResult {
        let sentAt = clock()
        let ids = chunk.map(\.id)
        let taken = await push.send(chunk.map(\.notification)).collect(into: [PushOutcome?](repeating: nil, count: chunk.count)) {
            taken, index, outcome in
            guard taken.indices.contains(index), taken[index] == nil else { return }
            taken[index] = outcome
            if case .invalidToken = outcome { return }
            outcomes.add(ids[index], recorded(outcome, at: clock()), reserved: true)
        }
        var result = ChunkResult()
        result.sent.reserveCapacity(chunk.count)
        for (entry, outcome) in zip(chunk, taken) {
            switch outcome {
            case .invalidToken(let reason, let unregisteredAtMilliseconds):
                if result.error == nil {
                    let dead = PushOutcome.invalidToken(reason: reason, unregisteredAtMilliseconds: unregisteredAtMilliseconds)
                    let (settled, error) = await settle(entry, dead: dead, reason: reason, sentAt: sentAt, store: store, clock: clock)
                    if let settled { result.sent.append(settled) }
                    result.error = error
                }
                outcomes.release(1)
            case .some(let outcome):
                result.sent.append(Sent(entry: entry, outcome: outcome, pruned: false))
            case nil:
                // A port must answer every push; one it did not is retried, as a lost answer would be.
                let lost = PushOutcome.temporaryFailure(reason: "no answer from the push port")
                outcomes.add(entry.id, recorded(lost, at: clock()), reserved: true)
                result.sent.append(Sent(entry: entry, outcome: lost, pruned: false))
            }
        }
        return result
    }

    /// Records a dead token's outcome, then prunes its device: recorded before the prune, so a
    /// device that is kept still shows why its entry ended (a pruned device takes its entries
    /// with it). The send once recorded (its device kept when the prune fails), and the store's
    /// error if either write failed.
    private static func settle(
        _ entry: OutboxEntry, dead: PushOutcome, reason: String, sentAt: Int64, store: any NotifierStore, clock: @Sendable () -> Int64
    ) async -> (sent: Sent?, error: (any Error)?) {
        do {
            try await store.record(.failed(.invalidToken, reason: reason, at: clock()), for: entry.id)
        } catch {
            return (nil, error)
        }
        do {
            let pruned = try await store.pruneDevice(entry.token, registeredNoLaterThan: dead.pruneCutoff(sentAt: sentAt))
            return (Sent(entry: entry, outcome: dead, pruned: pruned), nil)
        } catch {
            return (Sent(entry: entry, outcome: dead, pruned: false), error)
        }
    }

    /// What the outbox keeps of a send's outcome at `at`.
    static func recorded(_ outcome: PushOutcome, at: Int64) -> OutboxOutcome {
        switch outcome {
        case .delivered(let messageID): .delivered(at: at, messageID: messageID)
        case .invalidToken(let reason, _): .failed(.invalidToken, reason: reason, at: at)
        case .permanentFailure(let status, let reason): .failed(.permanent, reason: "\(status) \(reason)", at: at)
        case .authFailure(let reason): .failed(.auth, reason: reason, at: at)
        case .temporaryFailure(let reason): .failed(.temporary, reason: reason, at: at)
        }
    }
}
