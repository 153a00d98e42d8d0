import FrostboxCore

/// The forecasts of a dry run: fresh entries of the forecast cache and nothing else. It never
/// fetches, so a dry run writes no cache entry and charges no quota; a box without a fresh
/// cached forecast comes back `.budgetExhausted` (a dry run's fetch budget is zero), which a
/// run counts as left out.
public struct CacheOnlyForecastProvider: ForecastProvider {
    let cache: any ForecastCache
    let freshness: ForecastFreshness

    public init(cache: any ForecastCache, freshness: ForecastFreshness) {
        self.cache = cache
        self.freshness = freshness
    }

    public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        let cached: [GeoBox: BoxForecast]
        do {
            cached = try await cache.forecasts(for: boxes, fetchedSince: freshness.freshSince(now: now))
        } catch {
            let failure = ForecastFailure.transport("forecast cache: \(error)")
            return ForecastBatch(failures: Dictionary(boxes.map { ($0, failure) }) { first, _ in first })
        }
        var batch = ForecastBatch()
        for box in boxes {
            if let forecast = cached[box] {
                batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .cache)
            } else {
                batch.failures[box] = .budgetExhausted(retryAfter: nil)
            }
        }
        return batch
    }
}
