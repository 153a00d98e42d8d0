import Foundation
import FrostboxCore
import FrostboxOpenMeteo

/// Forecast configuration. The Open-Meteo adapter's part: where Open-Meteo is, its key, the
/// batch size, days, deadlines, body cap and attempts (`clientConfiguration`). The
/// forecasting part, whatever the source: the quota budgets, the cache's freshness, the
/// longest quota wait and the requests in flight (`CachedForecastProvider`). Read from the
/// `forecast.*` keys (and their `FROSTBOX_FORECAST_*` variables) by `ConfigLoader` only.
public struct ForecastSettings: Sendable, Hashable {
    /// Open-Meteo host: the free API, `https://customer-api.open-meteo.com` with a key, or a
    /// self-hosted instance.
    public var baseURL = "https://api.open-meteo.com"
    /// API key of the commercial API (`apikey`); nil for the free API.
    public var apiKey: String?
    /// Locations per request, 1–1,000.
    public var batchSize = 1_000
    /// Days of hourly forecast per box, 1–16.
    public var forecastDays = 3
    /// Weight budgets per minute / hour / day (the free API: 600 / 5,000 / 10,000).
    public var budgets = QuotaBudgets.openMeteoFree
    /// How long a cached forecast is fresh, seconds (a second run within it makes no call).
    public var cacheTTLSeconds: Int64 = 3_600
    /// Longest wait for a quota window (or a minutely 429) before giving up on the boxes left, seconds.
    public var maximumQuotaWaitSeconds = 60.0
    /// Deadline of one request, body included, seconds.
    public var requestTimeoutSeconds = 30.0
    /// Longest wait for a connection to the forecast server, seconds (apart from the request
    /// deadline); a timed-out connection is retried, a refused one fails at once.
    public var connectTimeoutSeconds = 10.0
    /// Largest response body accepted, bytes.
    public var maximumBodyBytes = 64 << 20
    /// Requests in flight at once.
    public var maximumConcurrentRequests = 2
    /// Attempts per batch, the first included.
    public var maximumAttempts = 4
    /// The models asked for, in order of preference; empty: Open-Meteo's `best_match`
    /// (`forecast.models`).
    public var modelNames: [String] = []
    /// Which models `best_match` may draw on where (`ModelWatchList` text, `forecast.watch_list`).
    public var watchList = try! ModelWatchList(parsing: OpenMeteoModels.bestMatchWatchList)
    /// Whether a cached forecast is fetched again only for a new model run (else by the TTL alone).
    public var runAware = true
    /// How long after a run's availability it is taken to be served everywhere, seconds.
    public var runDelaySeconds: Int64 = 600
    /// A forecast older than this is fetched again whatever the runs say, seconds.
    public var maximumAgeSeconds: Int64 = 43_200
    /// Deadline of one model metadata request, seconds.
    public var metaTimeoutSeconds = 5.0

    public init() {}

    /// The Open-Meteo client configuration these settings make.
    public var clientConfiguration: OpenMeteoSettings {
        OpenMeteoSettings(
            baseURL: baseURL, apiKey: apiKey, forecastDays: forecastDays, batchSize: batchSize, requestTimeoutSeconds: requestTimeoutSeconds,
            connectTimeoutSeconds: connectTimeoutSeconds,
            maximumBodyBytes: maximumBodyBytes, maximumAttempts: maximumAttempts, maximumRateLimitWaitSeconds: maximumQuotaWaitSeconds + 5,
            models: modelNames, metaTimeoutSeconds: metaTimeoutSeconds)
    }

    /// The models a box's forecast depends on.
    public var models: ForecastModels {
        modelNames.isEmpty ? .bestMatch(watchList: watchList) : .models(modelNames)
    }

    /// The run-aware freshness rule, the TTL its fallback.
    public var runFreshness: RunFreshness {
        RunFreshness(
            consistencyDelaySeconds: runDelaySeconds, maximumAgeSeconds: maximumAgeSeconds, fallback: ForecastFreshness(ttlSeconds: cacheTTLSeconds))
    }
}
