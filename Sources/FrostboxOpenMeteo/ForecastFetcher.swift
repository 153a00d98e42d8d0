import FrostboxCore

/// Fetches forecasts for a batch of boxes in one request (plus retries): the part of a
/// forecast source the cached provider drives.
public protocol ForecastFetcher: Sendable {
    /// Most boxes per request.
    var batchSize: Int { get }
    /// Quota weight charged per box.
    var weightPerLocation: Double { get }
    /// Forecasts for `boxes` in their order, or the failure of the whole batch. `gate` is
    /// consulted before and after every HTTP attempt.
    func forecasts(for boxes: [GeoBox], gate: (any RequestGate)?) async -> Result<[BoxForecast], ForecastFailure>
}

extension OpenMeteoClient: ForecastFetcher {
    public var batchSize: Int { configuration.batchSize }
}
