import FrostboxCore
import Logging

/// Checks kept nights against what happened (issue #48), as its own step after a notify
/// run's delivery. Once a night's window ended `afterDays` ago it is due: every alerted night
/// is chosen, and of the others a sample per region and night (`NightSampler`). The chosen
/// nights are asked of the archive, a box a location (all its chosen nights in one span of
/// days), batched, each request charged to the quota ledger under the check's own share of
/// the budgets, so forecasts always keep the rest. What the archive answers whole is kept;
/// a night it has only in part is asked again `askAgainSeconds` later, and given up `giveUpDays` after it
/// ended. Every step is written before the next begins, so a check cut short (kill -9) goes
/// on where it stopped and counts nothing twice; a lease keeps it to one process at a time,
/// on PostgreSQL one instance for the cluster.
public struct NightChecker: NightChecking {
    public struct Settings: Sendable, Hashable {
        /// Days after a night's end it is checked (`verification.after_days`).
        public var afterDays: Int = 2
        /// Not-alerted nights drawn per region and night.
        public var samplePerStratum: Int = 30
        /// The check's share of each quota window (`verification.budget_share`).
        public var budgetShare: Double = 0.1
        /// Longest span of days one request asks for: a month of one hourly variable is still
        /// charged as one a location (Open-Meteo counts days past 14 at a tenth per variable),
        /// and its answer stays small (about 5 MB for 1,000 locations).
        public var maximumSpanDays: Int = 31
        /// Days after its end a night the archive still lacks is given up.
        public var giveUpDays: Int = 14
        /// How long a night the archive did not have whole waits before it is asked again.
        public var askAgainSeconds: Int64 = 6 * 3_600
        /// Due nights read (and chosen) per pass; chosen nights asked per check.
        public var chooseChunk: Int = 50_000
        public var maximumChosenPerCheck: Int = 200_000
        /// How long the lease is held without renewal: it is renewed before each request, and a
        /// process that dies lets it go after this (`notifier.lease`).
        public var leaseSeconds: Int64 = 60

        public init() {}
    }

    /// The purpose the check's quota charges carry.
    public static let purpose = "verification"

    let store: any NightCheckStore
    let fetcher: any ObservationFetcher
    let ledger: any QuotaLedger
    let regions: (any RegionLocator)?
    let settings: Settings
    let clock: any ForecastClock
    let owner: String
    let logger: Logger

    public init(
        store: any NightCheckStore, fetcher: any ObservationFetcher, ledger: any QuotaLedger, regions: (any RegionLocator)?,
        settings: Settings = Settings(), clock: any ForecastClock = SystemForecastClock(), owner: String, logger: Logger
    ) {
        self.store = store
        self.fetcher = fetcher
        self.ledger = ledger
        self.regions = regions
        self.settings = settings
        self.clock = clock
        self.owner = owner
        self.logger = logger
    }

    var share: QuotaShare { QuotaShare(purpose: Self.purpose, fraction: settings.budgetShare) }

    public func check(now: Int64) async throws -> NightCheckSummary {
        var summary = NightCheckSummary()
        guard try await store.claimNightCheck(owner: owner, at: now, until: now + settings.leaseSeconds) else {
            summary.heldElsewhere = true
            return summary
        }
        do {
            try await choose(now: now, summary: &summary)
            try await observe(now: now, summary: &summary)
        } catch {
            try? await store.releaseNightCheck(owner: owner)
            throw error
        }
        try await store.releaseNightCheck(owner: owner)
        return summary
    }

    /// Chooses every due night, a chunk at a time (each chunk's strata are its own: `pass`).
    func choose(now: Int64, summary: inout NightCheckSummary) async throws {
        let endedBefore = now - Int64(settings.afterDays) * 86_400
        var pass = 0
        while true {
            let due = try await store.dueNights(endedBefore: endedBefore, limit: settings.chooseChunk)
            guard !due.isEmpty else { return }
            let boxes = Array(Set(due.map(\.box)))
            let located = try await regions?.regions(of: boxes) ?? [:]
            let choices = NightSampler.choose(due, regions: located, perStratum: settings.samplePerStratum, pass: "\(now).\(pass)")
            try await store.keep(choices)
            let chosen = choices.filter(\.chosen).count
            summary.chosen += chosen
            summary.skipped += choices.count - chosen
            pass += 1
            if due.count < settings.chooseChunk { return }
        }
    }

    /// One location of a request: a box and its chosen nights.
    struct Location {
        var box: GeoBox
        var nights: [NightRecord]
        var first: LocalDate
        var last: LocalDate
    }

    /// Asks the archive for the chosen nights, batch by batch, until done or the share is spent.
    func observe(now: Int64, summary: inout NightCheckSummary) async throws {
        let chosen = try await store.chosenNights(limit: settings.maximumChosenPerCheck, askedBefore: now - settings.askAgainSeconds + 1)
        var remaining = Self.locations(chosen)[...]
        let givingUpBefore = now - Int64(settings.giveUpDays) * 86_400
        let runClock = RunClock(now: now, clock: clock)
        let tally = RunTally()
        while !remaining.isEmpty {
            // Renewed before each request: a check that outlives its lease may have been taken over.
            let at = runClock.current()
            guard try await store.claimNightCheck(owner: owner, at: at, until: at + settings.leaseSeconds) else {
                summary.stoppedBy = "lease taken over"
                break
            }
            let batch = Self.batch(remaining, size: fetcher.batchSize, maximumSpanDays: settings.maximumSpanDays)
            let first = batch.map(\.first).min()!
            let last = batch.map(\.last).max()!
            let days = Int(last.daysSinceEpoch - first.daysSinceEpoch) + 1
            let weightPerUnit = fetcher.weightPerLocation(days: days)
            let grant = try await ledger.reserve(
                units: batch.count, weightPerUnit: weightPerUnit, minimumUnits: 1, at: runClock.current(), share: share)
            guard case .granted(let reservation) = grant else {
                summary.stoppedBy = Self.reason(grant)
                break
            }
            let taken = Array(batch.prefix(reservation.units))
            remaining = remaining.dropFirst(taken.count)
            let gate = LedgerGate(
                ledger: ledger, reserved: reservation, weightPerUnit: weightPerUnit, clock: runClock, tally: tally,
                wait: { _, _ in false }, logger: logger, share: share)
            let result = await fetcher.observations(for: taken.map(\.box), from: first, through: last, gate: gate)
            switch result {
            case .success(let observed):
                var observations: [NightObservation] = []
                for (location, hours) in zip(taken, observed) {
                    for record in location.nights {
                        let low = hours.minimum(from: record.verdict.windowStart, to: record.verdict.windowEnd)
                        observations.append(NightObservation(box: location.box, night: record.verdict.night, observedMinimumC: low))
                        if low != nil {
                            summary.observed += 1
                        } else if record.verdict.windowEnd < givingUpBefore {
                            summary.unavailable += 1
                        } else {
                            summary.waiting += 1
                        }
                    }
                }
                try await store.keep(observations, at: now, givingUpBefore: givingUpBefore)
            case .failure(let failure):
                logger.warning("night check: archive request failed, the rest waits for the next run", metadata: ["failure": "\(failure)"])
                summary.stoppedBy = "\(failure)"
                remaining = []
            }
        }
        summary.requests = await tally.requests
        summary.weight = await tally.weight
    }

    static func reason(_ grant: QuotaGrant) -> String {
        switch grant {
        case .granted: "granted"
        case .exhausted: "budget share used"
        case .held(let hold): "source paused: \(hold.reason)"
        }
    }

    /// The chosen nights as locations, oldest first.
    static func locations(_ chosen: [NightRecord]) -> [Location] {
        var byBox: [GeoBox: Location] = [:]
        var order: [GeoBox] = []
        for record in chosen {
            // UTC days: the archive is asked with `timezone=GMT`.
            let first = LocalDateTime(wallClockSeconds: record.verdict.windowStart).date
            let last = LocalDateTime(wallClockSeconds: record.verdict.windowEnd - 1).date
            if var location = byBox[record.verdict.box] {
                location.nights.append(record)
                location.first = min(location.first, first)
                location.last = max(location.last, last)
                byBox[record.verdict.box] = location
            } else {
                byBox[record.verdict.box] = Location(box: record.verdict.box, nights: [record], first: first, last: last)
                order.append(record.verdict.box)
            }
        }
        return order.compactMap { byBox[$0] }
    }

    /// The next batch: up to `size` locations whose days together span at most `maximumSpanDays`.
    static func batch(_ locations: ArraySlice<Location>, size: Int, maximumSpanDays: Int) -> [Location] {
        var batch: [Location] = []
        var first: LocalDate?
        var last: LocalDate?
        for location in locations.prefix(max(1, size)) {
            let lo = min(first ?? location.first, location.first)
            let hi = max(last ?? location.last, location.last)
            if !batch.isEmpty, hi.daysSinceEpoch - lo.daysSinceEpoch + 1 > Int64(maximumSpanDays) { break }
            batch.append(location)
            first = lo
            last = hi
        }
        return batch
    }

}
