import Foundation
import FrostboxCore
import FrostboxOpenMeteo

/// Forecast configuration: where Open-Meteo is, how requests are batched, the quota budgets
/// and the cache's freshness. Every field can be set from the environment (see
/// `environmentKeys`), which `FrostboxSettings` reads when it is created.
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

    public init() {}

    /// The environment variables read by `applying(environment:)`.
    public static let environmentKeys = [
        "FROSTBOX_FORECAST_URL", "FROSTBOX_FORECAST_API_KEY", "FROSTBOX_FORECAST_BATCH", "FROSTBOX_FORECAST_DAYS",
        "FROSTBOX_FORECAST_BUDGET_MINUTE", "FROSTBOX_FORECAST_BUDGET_HOUR", "FROSTBOX_FORECAST_BUDGET_DAY",
        "FROSTBOX_FORECAST_TTL", "FROSTBOX_FORECAST_MAX_WAIT", "FROSTBOX_FORECAST_TIMEOUT", "FROSTBOX_FORECAST_CONNECT_TIMEOUT", "FROSTBOX_FORECAST_CONCURRENCY",
        "FROSTBOX_FORECAST_ATTEMPTS",
    ]

    /// These settings with every `FROSTBOX_FORECAST_*` variable present in `environment` applied.
    public func applying(environment: [String: String]) -> ForecastSettings {
        var s = self
        func number(_ key: String) -> Double? { environment[key].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        if let url = environment["FROSTBOX_FORECAST_URL"], !url.isEmpty { s.baseURL = url }
        if let key = environment["FROSTBOX_FORECAST_API_KEY"] { s.apiKey = key.isEmpty ? nil : key }
        if let value = number("FROSTBOX_FORECAST_BATCH") { s.batchSize = Int(value) }
        if let value = number("FROSTBOX_FORECAST_DAYS") { s.forecastDays = Int(value) }
        if let value = number("FROSTBOX_FORECAST_BUDGET_MINUTE") { s.budgets.perMinute = value }
        if let value = number("FROSTBOX_FORECAST_BUDGET_HOUR") { s.budgets.perHour = value }
        if let value = number("FROSTBOX_FORECAST_BUDGET_DAY") { s.budgets.perDay = value }
        if let value = number("FROSTBOX_FORECAST_TTL") { s.cacheTTLSeconds = Int64(value) }
        if let value = number("FROSTBOX_FORECAST_MAX_WAIT") { s.maximumQuotaWaitSeconds = value }
        if let value = number("FROSTBOX_FORECAST_TIMEOUT") { s.requestTimeoutSeconds = value }
        if let value = number("FROSTBOX_FORECAST_CONNECT_TIMEOUT") { s.connectTimeoutSeconds = value }
        if let value = number("FROSTBOX_FORECAST_CONCURRENCY") { s.maximumConcurrentRequests = Int(value) }
        if let value = number("FROSTBOX_FORECAST_ATTEMPTS") { s.maximumAttempts = Int(value) }
        return s
    }

    /// The Open-Meteo client configuration these settings make.
    public var clientConfiguration: OpenMeteoSettings {
        OpenMeteoSettings(
            baseURL: baseURL, apiKey: apiKey, forecastDays: forecastDays, batchSize: batchSize, requestTimeoutSeconds: requestTimeoutSeconds,
            connectTimeoutSeconds: connectTimeoutSeconds,
            maximumBodyBytes: maximumBodyBytes, maximumAttempts: maximumAttempts, maximumRateLimitWaitSeconds: maximumQuotaWaitSeconds + 5)
    }
}

extension ForecastSettings {
    /// The defaults with this process's `FROSTBOX_FORECAST_*` environment applied.
    public static func fromEnvironment() -> ForecastSettings {
        ForecastSettings().applying(environment: ProcessInfo.processInfo.environment)
    }
}
