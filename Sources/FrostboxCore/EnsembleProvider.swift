/// Where a box's chance of frost comes from (`forecast.probability`, issue #47).
public enum ProbabilitySource: String, Sendable, Hashable, CaseIterable {
    /// The share of an ensemble's members (control included) whose night minimum reaches the threshold.
    case members
    /// An ensemble-mean model's mean and spread under a normal assumption (one weight a box).
    case spread
    /// No probability: the deterministic verdict alone.
    case off
}

/// Fetches ensembles for a batch of boxes in one request (plus retries): what the cached
/// ensemble provider drives, as `ForecastFetcher` is for deterministic forecasts.
public protocol EnsembleFetcher: Sendable {
    /// Most boxes per request.
    var batchSize: Int { get }
    /// Quota weight charged per box (`EnsembleWeight.perLocation`).
    var weightPerLocation: Double { get }
    /// Ensembles for `boxes` in their order, or the failure of the whole batch.
    func ensembles(for boxes: [GeoBox], gate: (any RequestGate)?) async -> Result<[EnsembleForecast], ForecastFailure>
}

/// Ensembles per box as last fetched (the ensemble counterpart of `ForecastCache`).
public protocol EnsembleCache: Sendable {
    /// The cached ensembles among `boxes` fetched at or after `fetchedSince`.
    func ensembles(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: EnsembleForecast]
    /// Stores (replacing) the ensembles, each under its box.
    func store(_ ensembles: [EnsembleForecast]) async throws
    /// Drops entries fetched before `fetchedBefore`; returns how many.
    @discardableResult
    func purge(fetchedBefore: Int64) async throws -> Int
}

/// The answer for a set of boxes: every box asked for is in exactly one of `ensembles` or `failures`.
public struct EnsembleBatch: Sendable {
    public var ensembles: [GeoBox: EnsembleForecast]
    /// Where each ensemble came from.
    public var sources: [GeoBox: ForecastSource]
    public var failures: [GeoBox: ForecastFailure]
    /// HTTP requests that reached the source (retries included).
    public var requestsMade: Int
    /// Quota weight charged.
    public var weightUsed: Double
    /// Cached ensembles kept because their model had no newer run.
    public var currentByRun: Int
    /// Requests for model-run metadata made (never charged).
    public var runChecks: Int

    public init(
        ensembles: [GeoBox: EnsembleForecast] = [:], sources: [GeoBox: ForecastSource] = [:], failures: [GeoBox: ForecastFailure] = [:],
        requestsMade: Int = 0, weightUsed: Double = 0, currentByRun: Int = 0, runChecks: Int = 0
    ) {
        self.ensembles = ensembles
        self.sources = sources
        self.failures = failures
        self.requestsMade = requestsMade
        self.weightUsed = weightUsed
        self.currentByRun = currentByRun
        self.runChecks = runChecks
    }

    /// Ensembles fetched in this call (not served from the cache).
    public var fetched: Int { sources.values.count(where: { $0 == .fetched }) }
}

/// The ensemble capability: one ensemble per box, from the cache while its model has no new
/// run, else fetched in batches within the same quota budgets as the forecasts.
public protocol EnsembleProvider: Sendable {
    /// Ensembles for `boxes` at `now`; every box appears once, as an ensemble or a failure.
    /// `reserving` is quota weight kept free for forecasts still to come (the deterministic
    /// verdict goes first): boxes whose ensemble would eat into it are left out.
    func ensembles(for boxes: [GeoBox], now: Int64, reserving: Double) async -> EnsembleBatch
}

extension EnsembleProvider {
    /// Ensembles for `boxes` at `now`, nothing reserved.
    public func ensembles(for boxes: [GeoBox], now: Int64) async -> EnsembleBatch {
        await ensembles(for: boxes, now: now, reserving: 0)
    }
}
