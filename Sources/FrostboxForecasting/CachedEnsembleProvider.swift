import FrostboxCore
import Logging

/// The ensemble capability (issue #47): each box's ensemble from the cache while its model
/// has no new run (or, without run awareness, within the TTL), else fetched in batches of up
/// to `batchSize` boxes, every request charged to the same quota ledger as the forecasts at
/// the ensemble's weight. Ensembles run less often than deterministic models (ECMWF ENS twice
/// a day), so a run-aware cache fetches them far less often than the forecasts.
public struct CachedEnsembleProvider: EnsembleProvider {
    let fetcher: any EnsembleFetcher
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

    public func ensembles(for boxes: [GeoBox], now: Int64) async -> EnsembleBatch {
        await ensembles(for: boxes, now: now, fetching: true)
    }

    /// The same provider for a dry run: what the cache holds current, nothing fetched or charged.
    public var cacheOnly: CacheOnly { CacheOnly(provider: self) }

    /// A `CachedEnsembleProvider` that never fetches (see `cacheOnly`).
    public struct CacheOnly: EnsembleProvider {
        let provider: CachedEnsembleProvider

        public func ensembles(for boxes: [GeoBox], now: Int64) async -> EnsembleBatch {
            await provider.ensembles(for: boxes, now: now, fetching: false)
        }
    }

    func ensembles(for boxes: [GeoBox], now: Int64, fetching: Bool) async -> EnsembleBatch {
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
        if !chosen.missing.isEmpty {
            if fetching {
                let fetcher = self.fetcher
                let source = BoxFetching<EnsembleForecast>(
                    batchSize: fetcher.batchSize, weightPerLocation: fetcher.weightPerLocation,
                    fetch: { boxes, gate in await fetcher.ensembles(for: boxes, gate: gate) }, store: { try await cache.store($0) })
                let run = FetchRun(
                    source: source, ledger: ledger, settings: settings, sleeper: clock, logger: logger, clock: RunClock(now: now, clock: clock),
                    stamp: chosen.stamp)
                let result = await run.fetch(chosen.missing)
                for (box, ensemble) in result.fetched {
                    batch.ensembles[box] = ensemble
                    batch.sources[box] = .fetched
                }
                batch.failures = result.failures
                batch.requestsMade = result.requests
                batch.weightUsed = result.weight
            } else {
                for box in chosen.missing { batch.failures[box] = .budgetExhausted(retryAfter: nil) }
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
