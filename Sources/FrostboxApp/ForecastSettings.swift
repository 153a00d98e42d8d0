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
    /// Where the chance of frost comes from (`forecast.probability`): ensemble members, an
    /// ensemble-mean model's mean and spread, or off (the deterministic verdict alone).
    public var probability = ProbabilitySource.spread
    /// The ensemble API's host (`forecast.ensemble.url`); nil: Open-Meteo's ensemble host for
    /// its public and customer hosts, else the forecast host itself (a self-hosted instance).
    public var ensembleURL: String?
    /// The ensemble models (`forecast.ensemble.models`); empty: `icon_seamless` (ICON-EPS, 40
    /// members) for `members`, `ecmwf_ifs025_ensemble_mean` for `spread`.
    public var ensembleModelNames: [String] = []
    /// Members charged per location when a model is not one Open-Meteo's table knows
    /// (`forecast.ensemble.members`, 0 or absent: from the table).
    public var ensembleMembers: Int?
    /// The chance of frost a subscription without its own `min_probability` is alerted at
    /// (`forecast.min_probability`, 0–1; 0: the deterministic verdict).
    public var defaultMinProbability = 0.5

    public init() {}

    /// The ensemble models asked for.
    public var ensembleModels: [String] {
        if !ensembleModelNames.isEmpty { return ensembleModelNames }
        return probability == .members ? ["icon_seamless"] : ["ecmwf_ifs025_ensemble_mean"]
    }

    /// The ensemble host: as configured, else Open-Meteo's ensemble host beside its forecast
    /// host, else the forecast host (a self-hosted Open-Meteo serves both).
    public var ensembleBaseURL: String {
        ensembleURL ?? host(beside: "ensemble")
    }

    /// The archive's host beside the forecast host (issue #48), as for ensembles.
    public var archiveBaseURL: String { host(beside: "archive") }

    /// Open-Meteo's `<product>-api` host beside its forecast host (free or commercial); any
    /// other server (self-hosted, a stand-in) serves every product itself.
    func host(beside product: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        switch base {
        case "https://api.open-meteo.com": return "https://\(product)-api.open-meteo.com"
        case "https://customer-api.open-meteo.com": return "https://customer-\(product)-api.open-meteo.com"
        default: return base
        }
    }

    /// The Open-Meteo configuration of ensemble requests: the forecast client's, on the
    /// ensemble host, with the ensemble models.
    public var ensembleClientConfiguration: OpenMeteoSettings {
        var settings = clientConfiguration
        settings.baseURL = ensembleBaseURL
        settings.models = ensembleModels
        settings.path = OpenMeteoSettings.ensemblePath
        return settings
    }

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
