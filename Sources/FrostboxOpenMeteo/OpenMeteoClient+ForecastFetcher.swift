import FrostboxCore

/// Open-Meteo's client is a `ForecastFetcher`: the cached provider drives it in batches.
extension OpenMeteoClient: ForecastFetcher {
    public var batchSize: Int { configuration.batchSize }
}
