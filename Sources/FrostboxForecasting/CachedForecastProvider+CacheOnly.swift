import FrostboxCore

extension CachedForecastProvider {
    /// The same provider for a dry run: it serves what the cache holds current — by model run
    /// when the provider is run-aware (a model's new run makes a cached forecast stale for
    /// the dry run too), else by the TTL — and fetches nothing. It writes no cache entry and
    /// charges no quota; a box without a current cached forecast comes back
    /// `.budgetExhausted` (a dry run's fetch budget is zero), which a run counts as left out.
    /// Looking up the models' latest runs is not a forecast request and is never charged.
    public var cacheOnly: CacheOnly { CacheOnly(provider: self) }

    /// A `CachedForecastProvider` that never fetches (see `cacheOnly`).
    public struct CacheOnly: ForecastProvider {
        let provider: CachedForecastProvider

        public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
            var seen = Set<GeoBox>()
            let unique = boxes.filter { seen.insert($0).inserted }
            var batch = ForecastBatch()
            let selection = await provider.select(unique, now: now, into: &batch)
            for box in selection.missing {
                batch.failures[box] = .budgetExhausted(retryAfter: nil)
            }
            return batch
        }
    }
}
