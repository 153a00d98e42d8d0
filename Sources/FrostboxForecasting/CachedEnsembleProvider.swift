import FrostboxCore
import Logging

/// The ensemble capability (issue #47): each box's ensemble from the cache while its model
/// has no new run (or, without run awareness, within the TTL), else fetched in batches of up
/// to `batchSize` boxes, every request charged to the same quota ledger as the forecasts at
/// the ensemble's weight. Ensembles run less often than deterministic models (ECMWF ENS twice
/// a day), so a run-aware cache fetches them far less often than the forecasts.
public struct CachedEnsembleProvider: EnsembleProvider {
    /// What fetches the ensembles (its weight per box is what each costs).
    public let fetcher: any EnsembleFetcher
    let cache: any EnsembleCache
    let ledger: any QuotaLedger
    let freshness: ForecastFreshness
    let clock: any ForecastClock
    let settings: CachedForecastProvider.Settings
    let runAwareness: CachedForecastProvider.RunAwareness?
    let logger: Logger

    public init(
        fetcher: any EnsembleFetcher, cache: any EnsembleCache, ledger: any QuotaLedger, freshness: ForecastFreshness = ForecastFreshness(),
        clock: any ForecastClock = SystemForecastClock(), settings: CachedForecastProvider.Settings = .init(),
        runAwareness: CachedForecastProvider.RunAwareness? = nil, logger: Logger = Logger(label: "frostbox.ensembles")
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

    public func ensembles(for boxes: [GeoBox], now: Int64, reserving: Double) async -> EnsembleBatch {
        await ensembles(for: boxes, now: now, fetching: true, reserving: reserving)
    }

    /// The same provider for a dry run: what the cache holds current, nothing fetched or charged.
    public var cacheOnly: CacheOnly { CacheOnly(provider: self) }

    /// A `CachedEnsembleProvider` that never fetches (see `cacheOnly`).
    public struct CacheOnly: EnsembleProvider {
        let provider: CachedEnsembleProvider

        public func ensembles(for boxes: [GeoBox], now: Int64, reserving: Double) async -> EnsembleBatch {
            await provider.ensembles(for: boxes, now: now, fetching: false, reserving: 0)
        }
    }

    /// How many ensembles the hour's and the day's budgets allow with `reserving` kept free
    /// (the minute window refills within the run's quota wait, so it is not reserved).
    func affordableBoxes(reserving: Double, now: Int64) async -> Int {
        guard let usage = try? await ledger.usage(at: now) else { return 0 }
        let room = min(usage.budgets.perHour - usage.lastHour, usage.budgets.perDay - usage.lastDay) - reserving
        let weight = max(fetcher.weightPerLocation, 1e-9)
        return room <= 0 ? 0 : Int((room / weight).rounded(.down))
    }

    func ensembles(for boxes: [GeoBox], now: Int64, fetching: Bool, reserving: Double) async -> EnsembleBatch {
        var seen = Set<GeoBox>()
        let unique = boxes.filter { seen.insert($0).inserted }
        let cache = self.cache
        let chosen = await CacheSelection<EnsembleForecast>.choose(
            unique, now: now, runAwareness: runAwareness, freshness: freshness, logger: logger,
            lookup: { try await cache.ensembles(for: $0, fetchedSince: $1) })
        var batch = EnsembleBatch(currentByRun: chosen.currentByRun, runChecks: chosen.runChecks)
        for (box, ensemble) in chosen.fresh {
            batch.ensembles[box] = ensemble
            batch.sources[box] = .cache
        }
        var missing = chosen.missing
        if fetching, reserving > 0, !missing.isEmpty {
            let affordable = await affordableBoxes(reserving: reserving, now: now)
            for box in missing.dropFirst(affordable) { batch.failures[box] = .budgetExhausted(retryAfter: nil) }
            missing = Array(missing.prefix(affordable))
        }
        if !missing.isEmpty {
            if fetching {
                let fetcher = self.fetcher
                let source = BoxFetching<EnsembleForecast>(
                    batchSize: fetcher.batchSize, weightPerLocation: fetcher.weightPerLocation,
                    fetch: { boxes, gate in await fetcher.ensembles(for: boxes, gate: gate) }, store: { try await cache.store($0) })
                let run = FetchRun(
                    source: source, ledger: ledger, settings: settings, sleeper: clock, logger: logger, clock: RunClock(now: now, clock: clock),
                    stamp: chosen.stamp)
                let result = await run.fetch(missing)
                for (box, ensemble) in result.fetched {
                    batch.ensembles[box] = ensemble
                    batch.sources[box] = .fetched
                }
                batch.failures.merge(result.failures) { $1 }
                batch.requestsMade = result.requests
                batch.weightUsed = result.weight
            } else {
                for box in missing { batch.failures[box] = .budgetExhausted(retryAfter: nil) }
            }
        }
        if fetching, settings.cacheRetentionSeconds > 0 {
            _ = try? await cache.purge(fetchedBefore: now - settings.cacheRetentionSeconds)
        }
        logger.info(
            "ensembles",
            metadata: [
                "boxes": "\(unique.count)", "cached": "\(chosen.fresh.count)", "current_by_run": "\(batch.currentByRun)",
                "fetched": "\(batch.fetched)", "run_checks": "\(batch.runChecks)", "failed": "\(batch.failures.count)",
                "requests": "\(batch.requestsMade)", "weight": "\(batch.weightUsed)",
            ])
        return batch
    }
}
