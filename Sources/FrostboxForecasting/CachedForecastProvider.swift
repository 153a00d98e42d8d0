import FrostboxCore
import Logging

/// The forecast capability: each box from the cache while fresh, else fetched in batches
/// of up to `batchSize` boxes, every request charged to the quota ledger before it starts.
/// A batch is packed to what the budgets allow; when only the minute window is in the way
/// and it frees within `maximumQuotaWaitSeconds` the provider waits for it, otherwise the
/// boxes left come back as `.budgetExhausted` (or `.rateLimited` while the source's pause
/// holds) for the caller to retry first next run.
public struct CachedForecastProvider: ForecastProvider {
    let fetcher: any ForecastFetcher
    let cache: any ForecastCache
    let ledger: any QuotaLedger
    let freshness: ForecastFreshness
    let clock: any ForecastClock
    let settings: Settings
    /// Run-aware freshness; nil: the time-based TTL alone.
    let runAwareness: RunAwareness?
    let logger: Logger

    /// Tuning of a provider run.
    public struct Settings: Sendable, Hashable {
        /// Longest wait for a quota window to free before giving up on the boxes left, seconds.
        public var maximumQuotaWaitSeconds: Double
        /// Requests in flight at once.
        public var maximumConcurrentRequests: Int
        /// Batches failing in a row (after their retries) before the run stops asking.
        public var maximumConsecutiveFailures: Int
        /// Cache entries older than this are deleted after a run, seconds.
        public var cacheRetentionSeconds: Int64

        public init(
            maximumQuotaWaitSeconds: Double = 60, maximumConcurrentRequests: Int = 2, maximumConsecutiveFailures: Int = 3,
            cacheRetentionSeconds: Int64 = 7 * 86_400
        ) {
            self.maximumQuotaWaitSeconds = maximumQuotaWaitSeconds
            self.maximumConcurrentRequests = max(1, maximumConcurrentRequests)
            self.maximumConsecutiveFailures = max(1, maximumConsecutiveFailures)
            self.cacheRetentionSeconds = cacheRetentionSeconds
        }
    }

    public init(
        fetcher: any ForecastFetcher, cache: any ForecastCache, ledger: any QuotaLedger, freshness: ForecastFreshness = ForecastFreshness(),
        clock: any ForecastClock = SystemForecastClock(), settings: Settings = Settings(), runAwareness: RunAwareness? = nil,
        logger: Logger = Logger(label: "frostbox.forecasts")
    ) {
        self.fetcher = fetcher
        self.cache = cache
        self.ledger = ledger
        self.freshness = freshness
        self.clock = clock
        self.settings = settings
        self.runAwareness = runAwareness
        self.logger = logger
    }

    public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        var seen = Set<GeoBox>()
        let unique = boxes.filter { seen.insert($0).inserted }
        var batch = ForecastBatch()
        let selection = await select(unique, now: now, into: &batch)
        if !selection.missing.isEmpty {
            let fetcher = self.fetcher
            let cache = self.cache
            let source = BoxFetching<BoxForecast>(
                batchSize: fetcher.batchSize, weightPerLocation: fetcher.weightPerLocation,
                fetch: { boxes, gate in await fetcher.forecasts(for: boxes, gate: gate) }, store: { try await cache.store($0) })
            let run = FetchRun(
                source: source, ledger: ledger, settings: settings, sleeper: clock, logger: logger, clock: RunClock(now: now, clock: clock),
                stamp: selection.stamp)
            let result = await run.fetch(selection.missing)
            for (box, forecast) in result.fetched { batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .fetched) }
            batch.failures.merge(result.failures) { $1 }
            batch.requestsMade += result.requests
            batch.weightUsed += result.weight
        } else if runAwareness != nil, !unique.isEmpty, batch.currentByRun == unique.count {
            logger.info("no model has a new run: nothing fetched", metadata: ["boxes": "\(unique.count)", "current_by_run": "\(batch.currentByRun)"])
        }
        if settings.cacheRetentionSeconds > 0 {
            _ = try? await cache.purge(fetchedBefore: now - settings.cacheRetentionSeconds)
        }
        logger.info(
            "forecasts",
            metadata: [
                "boxes": "\(unique.count)", "cached": "\(selection.cached)", "current_by_run": "\(batch.currentByRun)",
                "fetched": "\(batch.forecasts.count - selection.cached)", "run_checks": "\(batch.runChecks)",
                "failed": "\(batch.failures.count)", "requests": "\(batch.requestsMade)", "weight": "\(batch.weightUsed)",
            ])
        return batch
    }
}

/// The caller's `now`, advanced by the time the run has taken (waits included).
struct RunClock: Sendable {
    let now: Int64
    let started: Int64
    let clock: any ForecastClock

    init(now: Int64, clock: any ForecastClock) {
        self.now = now
        self.clock = clock
        self.started = clock.now()
    }

    func current() -> Int64 { now + max(0, clock.now() - started) }

    /// An instant of the forecast clock (a source's "retry at") in the caller's frame.
    func translate(_ instant: Int64) -> Int64 { instant + now - started }
}

/// Requests made and weight charged during one run, across concurrent batches.
actor RunTally {
    var requests = 0
    var weight = 0.0

    func add(requests: Int = 0, weight: Double = 0) {
        self.requests += requests
        self.weight += weight
    }
}

/// What a fetch run fetches and where it keeps it: forecasts or ensembles (`BoxPayload`).
struct BoxFetching<Payload: BoxPayload>: Sendable {
    /// Most boxes per request.
    let batchSize: Int
    /// Quota weight charged per box.
    let weightPerLocation: Double
    /// One batch, its attempts gated.
    let fetch: @Sendable ([GeoBox], any RequestGate) async -> Result<[Payload], ForecastFailure>
    /// Caches what was fetched.
    let store: @Sendable ([Payload]) async throws -> Void
}

/// What a fetch run got: every box it was given is in `fetched` or `failures`.
struct FetchResult<Payload: BoxPayload>: Sendable {
    var fetched: [GeoBox: Payload] = [:]
    var failures: [GeoBox: ForecastFailure] = [:]
    var requests = 0
    var weight = 0.0
}

/// One provider run's fetching: reserve, request, settle, cache.
struct FetchRun<Payload: BoxPayload>: Sendable {
    let source: BoxFetching<Payload>
    let ledger: any QuotaLedger
    let settings: CachedForecastProvider.Settings
    /// The clock waits are slept on.
    let sleeper: any ForecastClock
    let logger: Logger
    let clock: RunClock
    /// Sets the model runs on fetched payloads before they are cached and returned.
    let stamp: @Sendable ([Payload]) -> [Payload]
    let tally = RunTally()

    /// The outcome of one batch.
    struct Outcome: Sendable {
        let boxes: [GeoBox]
        let result: Result<[Payload], ForecastFailure>
    }

    func fetch(_ boxes: [GeoBox]) async -> FetchResult<Payload> {
        var batch = FetchResult<Payload>()
        var missing = boxes[...]
        var stop: ForecastFailure?
        var consecutiveFailures = 0
        let weightPerUnit = source.weightPerLocation

        func absorb(_ outcome: Outcome, into batch: inout FetchResult<Payload>) {
            switch outcome.result {
            case .success(let forecasts):
                consecutiveFailures = 0
                for forecast in forecasts {
                    if let box = forecast.box { batch.fetched[box] = forecast }
                }
            case .failure(let failure):
                for box in outcome.boxes { batch.failures[box] = failure }
                if case .rateLimited = failure, stop == nil {
                    // The source said stop: the boxes left wait for the next run (the pause is in the ledger).
                    stop = failure
                }
                consecutiveFailures += 1
                if consecutiveFailures >= settings.maximumConsecutiveFailures, stop == nil {
                    logger.error("forecast source keeps failing, stopping this run", metadata: ["failure": "\(failure)"])
                    stop = failure
                }
            }
        }

        await withTaskGroup(of: Outcome.self) { group in
            var inFlight = 0
            while !missing.isEmpty, stop == nil {
                if inFlight >= settings.maximumConcurrentRequests, let outcome = await group.next() {
                    inFlight -= 1
                    absorb(outcome, into: &batch)
                    continue
                }
                let at = clock.current()
                let grant: QuotaGrant
                do {
                    grant = try await ledger.reserve(
                        units: min(source.batchSize, missing.count), weightPerUnit: weightPerUnit, minimumUnits: 1, at: at)
                } catch {
                    logger.error("quota ledger unavailable: no request started", metadata: ["error": "\(error)"])
                    stop = .transport("The quota ledger is unavailable: \(error)")
                    break
                }
                switch grant {
                case .granted(let reservation):
                    let take = Array(missing.prefix(reservation.units))
                    missing = missing.dropFirst(reservation.units)
                    inFlight += 1
                    group.addTask { await fetchBatch(take, reservation: reservation) }
                case .exhausted(let retryAfter):
                    if inFlight > 0, let outcome = await group.next() {
                        // A batch in flight may settle to less than it reserved; look again after it.
                        inFlight -= 1
                        absorb(outcome, into: &batch)
                    } else if let retryAfter, await wait(until: retryAfter, from: at) {
                        continue
                    } else {
                        stop = .budgetExhausted(retryAfter: retryAfter)
                    }
                case .held(let hold):
                    if inFlight > 0, let outcome = await group.next() {
                        inFlight -= 1
                        absorb(outcome, into: &batch)
                    } else if await wait(until: hold.until, from: at) {
                        continue
                    } else {
                        stop = .rateLimited(reason: hold.reason, retryAfter: hold.until)
                    }
                }
            }
            for await outcome in group { absorb(outcome, into: &batch) }
        }
        let failure = stop ?? .budgetExhausted(retryAfter: nil)
        for box in missing { batch.failures[box] = failure }
        batch.requests = await tally.requests
        batch.weight = await tally.weight
        return batch
    }

    /// Waits until `until` when that is within the allowed quota wait; false when it is not.
    func wait(until: Int64, from at: Int64) async -> Bool {
        let seconds = Double(until - at)
        guard seconds <= settings.maximumQuotaWaitSeconds else { return false }
        logger.info("waiting for the forecast quota window", metadata: ["seconds": "\(seconds)"])
        do {
            try await sleeper.sleep(seconds: max(0, seconds))
            return true
        } catch {
            return false
        }
    }

    /// One batch through the fetcher, its attempts gated by the ledger; caches what it gets.
    func fetchBatch(_ boxes: [GeoBox], reservation: QuotaReservation) async -> Outcome {
        let gate = LedgerGate(
            ledger: ledger, reserved: reservation, weightPerUnit: source.weightPerLocation, clock: clock, tally: tally,
            wait: { until, at in await wait(until: until, from: at) }, logger: logger)
        let result = await source.fetch(boxes, gate).map(stamp)
        switch result {
        case .success(let forecasts):
            do {
                try await source.store(forecasts)
            } catch {
                logger.error("forecast cache write failed", metadata: ["error": "\(error)", "boxes": "\(boxes.count)"])
            }
        case .failure(.rateLimited(let reason, let retryAfter)):
            // The source asked for a pause: no request of ours (this process or another) starts before it ends.
            let until = retryAfter.map(clock.translate) ?? clock.current() + 60
            do {
                try await ledger.hold(QuotaHold(until: until, reason: reason), at: clock.current())
            } catch {
                logger.error("could not record the source's pause", metadata: ["error": "\(error)"])
            }
        case .failure:
            break
        }
        return Outcome(boxes: boxes, result: result)
    }
}

/// Charges every HTTP attempt of one batch to the ledger: the first uses the batch's
/// reservation, each retry needs a reservation of its own. After the attempt the charge is
/// settled, in the same ledger, to what the server charged (`AttemptCharge`): the full
/// weight for an answer with status 200 or a request cut off after it was sent, 1 for an
/// error answer, nothing for a request that never reached the server. A 429 naming one of
/// the server's windows is recorded as a hold, so this run, the next and other processes
/// plan with the server's count rather than ours.
actor LedgerGate: RequestGate {
    let ledger: any QuotaLedger
    let weightPerUnit: Double
    let clock: RunClock
    let tally: RunTally
    /// Waits until the first second (caller's frame) from the second; false when not allowed.
    let wait: @Sendable (Int64, Int64) async -> Bool
    let logger: Logger
    /// The share of the budgets retries are charged to, when the batch's reservation was.
    let share: QuotaShare?
    var reserved: QuotaReservation?
    var current: QuotaReservation?

    init(
        ledger: any QuotaLedger, reserved: QuotaReservation, weightPerUnit: Double, clock: RunClock, tally: RunTally,
        wait: @escaping @Sendable (Int64, Int64) async -> Bool, logger: Logger, share: QuotaShare? = nil
    ) {
        self.share = share
        self.ledger = ledger
        self.reserved = reserved
        self.weightPerUnit = weightPerUnit
        self.clock = clock
        self.tally = tally
        self.wait = wait
        self.logger = logger
    }

    func admit(locations: Int, attempt: Int) async -> ForecastFailure? {
        if let reservation = reserved {
            reserved = nil
            current = reservation
            return nil
        }
        do {
            while true {
                let at = clock.current()
                switch try await ledger.reserve(units: locations, weightPerUnit: weightPerUnit, minimumUnits: locations, at: at, share: share) {
                case .granted(let reservation):
                    current = reservation
                    return nil
                case .exhausted(let retryAfter):
                    return .budgetExhausted(retryAfter: retryAfter)
                case .held(let hold):
                    // A short pause (another batch's minutely 429) is waited out like the client waits out its own.
                    guard await wait(hold.until, at) else { return .rateLimited(reason: hold.reason, retryAfter: hold.until) }
                }
            }
        } catch {
            return .transport("The quota ledger is unavailable: \(error)")
        }
    }

    func settle(locations: Int, attempt: Int, report: AttemptReport) async {
        guard let reservation = current else { return }
        current = nil
        let weight = report.charge.weight(reserved: reservation.weight)
        // A request counts once it reached the server; one that never left is neither a request nor a cost.
        await tally.add(requests: report.charge == .nothing ? 0 : 1, weight: weight)
        do {
            try await ledger.settle(reservation, weight: weight)
        } catch {
            // The reservation keeps its full weight: the ledger errs on the side of spending less.
            logger.error("could not settle a quota charge", metadata: ["error": "\(error)"])
        }
        guard let pause = report.pause else { return }
        let hold = QuotaHold(until: clock.translate(pause.until), reason: pause.reason)
        do {
            try await ledger.hold(hold, at: clock.current())
        } catch {
            logger.error("could not record the source's pause", metadata: ["error": "\(error)"])
        }
    }
}
