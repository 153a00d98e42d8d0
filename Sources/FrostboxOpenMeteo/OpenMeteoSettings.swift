import FrostboxCore

/// How the Open-Meteo client talks to its server.
public struct OpenMeteoSettings: Sendable, Hashable {
    /// Scheme and host (and optional path prefix) of the API: the free
    /// `https://api.open-meteo.com`, the commercial `https://customer-api.open-meteo.com`,
    /// or a self-hosted instance. `/v1/forecast` is appended unless already there.
    public var baseURL: String
    /// API key for the commercial API, sent as `apikey`; nil for the free API.
    public var apiKey: String?
    /// Days of hourly forecast to ask for (1–16).
    public var forecastDays: Int
    /// Most locations per request (1–1,000). A request's weight is still one per location
    /// (at the default variables): batching saves round trips, not quota.
    public var batchSize: Int
    /// Deadline of one HTTP request, body included, seconds.
    public var requestTimeoutSeconds: Double
    /// Longest wait for a TCP connection to the server, seconds, apart from the request
    /// deadline. A connection that is refused, or to a host name that does not resolve, fails
    /// at once without retries; one that times out is retried like a 5xx. Either way nothing
    /// was sent, so nothing is charged.
    public var connectTimeoutSeconds: Double
    /// Largest response body accepted, bytes.
    public var maximumBodyBytes: Int
    /// A query longer than this goes as a form-encoded POST instead of a GET.
    public var maximumURLBytes: Int
    /// Attempts per batch, the first included (5xx, timeouts and connections lost after the
    /// request was sent are retried; a server that cannot be reached is not).
    public var maximumAttempts: Int
    /// First retry delay, seconds; doubles each attempt, with jitter.
    public var backoffBaseSeconds: Double
    /// Longest retry delay, seconds.
    public var backoffMaximumSeconds: Double
    /// Longest wait for a 429 "minutely limit" to pass before retrying; a longer wait (the
    /// hourly and daily limits) fails the batch as rate-limited instead.
    public var maximumRateLimitWaitSeconds: Double
    /// How far (degrees) the grid cell in an answer may lie from the box asked for before the
    /// answer is taken to be about another place.
    public var maximumGridDistanceDegrees: Double
    /// The models asked for (`models=`), in order of preference: each hour of a forecast comes
    /// from the first of them that has it. Empty: Open-Meteo's `best_match`, sent without
    /// `models=`.
    public var models: [String]
    /// Deadline of one model metadata request, seconds (one attempt: a failure falls back to the TTL).
    public var metaTimeoutSeconds: Double
    /// Largest model metadata body accepted, bytes.
    public var maximumMetaBodyBytes: Int
    /// The API's path under the base URL: `/v1/forecast`, `/v1/ensemble` for ensembles, or
    /// `/v1/archive` for what happened.
    public var path: String = Self.forecastPath
    /// The hourly variables asked for (`hourly=`).
    public var hourlyVariables: [String] = Self.hourlyVariables
    /// The `timezone=` sent: `auto` (each location's own zone) for forecasts, `GMT` for the
    /// archive, whose dates are UTC days.
    public var timezone: String = "auto"
    /// The days asked for (`start_date` and `end_date`, both included) instead of
    /// `forecast_days`; nil: `forecast_days`. Dates are days of `timezone`.
    public var dateRange: ClosedRange<LocalDate>?

    public init(
        baseURL: String = "https://api.open-meteo.com", apiKey: String? = nil, forecastDays: Int = 3, batchSize: Int = 1_000,
        requestTimeoutSeconds: Double = 30, connectTimeoutSeconds: Double = 10, maximumBodyBytes: Int = 64 << 20, maximumURLBytes: Int = 8_000,
        maximumAttempts: Int = 4, backoffBaseSeconds: Double = 0.5, backoffMaximumSeconds: Double = 8,
        maximumRateLimitWaitSeconds: Double = 65, maximumGridDistanceDegrees: Double = 1, models: [String] = [], metaTimeoutSeconds: Double = 5,
        maximumMetaBodyBytes: Int = 64 << 10
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.forecastDays = min(max(forecastDays, 1), 16)
        self.batchSize = min(max(batchSize, 1), Self.maximumBatchSize)
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumURLBytes = maximumURLBytes
        self.maximumAttempts = max(1, maximumAttempts)
        self.backoffBaseSeconds = backoffBaseSeconds
        self.backoffMaximumSeconds = backoffMaximumSeconds
        self.maximumRateLimitWaitSeconds = maximumRateLimitWaitSeconds
        self.maximumGridDistanceDegrees = maximumGridDistanceDegrees
        self.models = models.filter { $0 != OpenMeteoModels.bestMatch }
        self.metaTimeoutSeconds = metaTimeoutSeconds
        self.maximumMetaBodyBytes = maximumMetaBodyBytes
    }

    /// The most models one configuration asks for.
    public static let maximumModels = 5

    /// Open-Meteo's limit of locations per request.
    public static let maximumBatchSize = 1_000

    /// The hourly variables asked for: °C, °C, %, km/h.
    public static let hourlyVariables = ["temperature_2m", "dew_point_2m", "cloud_cover", "wind_speed_10m"]

    /// Open-Meteo's charge per location: max(1, variables / 10 × max(1, days / 14)), where each
    /// model asked for counts its variables again.
    public static func weightPerLocation(variables: Int, days: Int) -> Double {
        max(1, Double(variables) / 10 * max(1, Double(days) / 14))
    }

    /// The charge per location of this configuration's requests.
    public var weightPerLocation: Double {
        Self.weightPerLocation(variables: hourlyVariables.count * max(1, models.count), days: days)
    }

    /// The days one request covers: its date range's, else `forecastDays`.
    public var days: Int {
        guard let dateRange else { return forecastDays }
        return Int(dateRange.upperBound.daysSinceEpoch - dateRange.lowerBound.daysSinceEpoch) + 1
    }

    /// The forecast API's path.
    public static let forecastPath = "/v1/forecast"
    /// The ensemble API's path.
    public static let ensemblePath = "/v1/ensemble"
    /// The historical weather (archive) API's path.
    public static let archivePath = "/v1/archive"

    /// The server's root: the base URL without a trailing `/` or the API's path.
    public var serverRoot: String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix(path) { base.removeLast(path.count) }
        return base
    }

    /// The API endpoint's URL, without query.
    public var endpoint: String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base.hasSuffix(path) ? base : base + path
    }
}
