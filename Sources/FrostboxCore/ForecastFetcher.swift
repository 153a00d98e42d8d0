/// Fetches forecasts for a batch of boxes in one request (plus retries): the part of a
/// forecast source that the cached provider (`FrostboxForecasting`) drives. Open-Meteo's
/// client is one; another weather service would be another, behind the same cache, quota
/// ledger and request gate.
public protocol ForecastFetcher: Sendable {
    /// Most boxes per request.
    var batchSize: Int { get }
    /// Quota weight charged per box.
    var weightPerLocation: Double { get }
    /// Forecasts for `boxes` in their order, or the failure of the whole batch. `gate` is
    /// consulted before and after every HTTP attempt.
    func forecasts(for boxes: [GeoBox], gate: (any RequestGate)?) async -> Result<[BoxForecast], ForecastFailure>
}
