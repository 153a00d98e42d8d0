/// One hour of a box's forecast. `time` is the UTC instant; `local` the wall clock at the place.
public struct ForecastHour: Sendable, Hashable, Codable {
    /// Start of the hour, UTC epoch seconds.
    public var time: Int64
    /// The same instant on the place's wall clock.
    public var local: LocalDateTime
    /// Air temperature at 2 m, °C.
    public var temperatureC: Double?
    /// Dew point at 2 m, °C.
    public var dewPointC: Double?
    /// Total cloud cover, %.
    public var cloudCoverPercent: Double?
    /// Wind speed at 10 m, km/h.
    public var windSpeedKmh: Double?

    public init(
        time: Int64, local: LocalDateTime, temperatureC: Double?, dewPointC: Double? = nil, cloudCoverPercent: Double? = nil, windSpeedKmh: Double? = nil
    ) {
        self.time = time
        self.local = local
        self.temperatureC = temperatureC
        self.dewPointC = dewPointC
        self.cloudCoverPercent = cloudCoverPercent
        self.windSpeedKmh = windSpeedKmh
    }
}

/// A box's hourly forecast as the forecast source answered it.
public struct BoxForecast: Sendable, Hashable, Codable {
    /// The box's compact key (`GeoBox.key`).
    public var boxKey: Int64
    /// IANA time zone of the place (`timezone=auto`).
    public var timezone: String
    /// UTC offset at the start of the series, seconds.
    public var utcOffsetSeconds: Int
    /// The grid cell the source answered with.
    public var gridLatitude: Double
    public var gridLongitude: Double
    /// Elevation the source used, metres.
    public var elevation: Double?
    /// When it was fetched, UTC epoch seconds.
    public var fetchedAt: Int64
    /// The hours, in time order.
    public var hours: [ForecastHour]
    /// The model runs it came from, by model name (empty when they were not known).
    public var runs: [ModelRun]

    public var box: GeoBox? { GeoBox(key: boxKey) }

    public init(
        box: GeoBox, timezone: String, utcOffsetSeconds: Int, gridLatitude: Double, gridLongitude: Double, elevation: Double?, fetchedAt: Int64,
        hours: [ForecastHour], runs: [ModelRun] = []
    ) {
        self.boxKey = box.key
        self.timezone = timezone
        self.utcOffsetSeconds = utcOffsetSeconds
        self.gridLatitude = gridLatitude
        self.gridLongitude = gridLongitude
        self.elevation = elevation
        self.fetchedAt = fetchedAt
        self.hours = hours
        self.runs = runs
    }
}

/// Where a forecast came from in this run.
public enum ForecastSource: String, Sendable, Hashable, Codable {
    case cache
    case fetched
}

/// Why a box has no forecast this time. Remote outcomes are typed, never strings alone.
public enum ForecastFailure: Error, Sendable, Hashable {
    /// Not attempted: starting the request would break a quota budget. Retry after the given epoch second.
    case budgetExhausted(retryAfter: Int64?)
    /// The source answered 429 with this reason (minute / hour / day limit).
    case rateLimited(reason: String, retryAfter: Int64?)
    /// The source answered an error (`{"error": true, "reason": …}` or a bare status).
    case remote(status: Int, reason: String)
    /// A 200 whose body did not decode, was truncated or had the wrong number of locations.
    case invalidResponse(String)
    /// No answer within the deadline, after retries.
    case timeout
    /// Connection-level failure, after retries.
    case transport(String)
}

/// A box's forecast with its source.
public struct SourcedForecast: Sendable, Hashable {
    public var forecast: BoxForecast
    public var source: ForecastSource

    public init(forecast: BoxForecast, source: ForecastSource) {
        self.forecast = forecast
        self.source = source
    }
}

/// The answer for a set of boxes: every box asked for is in exactly one of `forecasts` or `failures`.
public struct ForecastBatch: Sendable {
    public var forecasts: [GeoBox: SourcedForecast]
    public var failures: [GeoBox: ForecastFailure]
    /// HTTP requests that reached the source for this batch (retries included; an attempt
    /// that never left, e.g. a refused connection, is not one).
    public var requestsMade: Int
    /// Quota weight charged for this batch.
    public var weightUsed: Double
    /// Cached forecasts kept because no model their box depends on had a newer run (a part
    /// of the forecasts whose source is `.cache`).
    public var currentByRun: Int
    /// Requests for model-run metadata made for this batch (never charged to the quota).
    public var runChecks: Int
    /// The latest run of each model known for this batch.
    public var latestRuns: [ModelRun]
    /// Runs seen for the first time with this batch (a model's new run).
    public var newRuns: [ModelRun]

    public init(
        forecasts: [GeoBox: SourcedForecast] = [:], failures: [GeoBox: ForecastFailure] = [:], requestsMade: Int = 0, weightUsed: Double = 0,
        currentByRun: Int = 0, runChecks: Int = 0, latestRuns: [ModelRun] = [], newRuns: [ModelRun] = []
    ) {
        self.forecasts = forecasts
        self.failures = failures
        self.requestsMade = requestsMade
        self.weightUsed = weightUsed
        self.currentByRun = currentByRun
        self.runChecks = runChecks
        self.latestRuns = latestRuns
        self.newRuns = newRuns
    }
}

/// The forecast capability: one forecast per box, from cache when fresh, else fetched in
/// batches within the quota budgets.
public protocol ForecastProvider: Sendable {
    /// Forecasts for `boxes` at time `now` (UTC epoch seconds). Every box asked for appears
    /// exactly once in the result, as a forecast or as a failure.
    func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch
}
