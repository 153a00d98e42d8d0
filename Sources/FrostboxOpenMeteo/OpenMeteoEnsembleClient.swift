import AsyncHTTPClient
import Foundation
import FrostboxCore

/// The Open-Meteo `/v1/ensemble` client (issue #47): the forecast client's requests, batching,
/// deadlines, body cap, retries and quota gate, asking for hourly `temperature_2m` of the
/// ensemble model(s) and decoding every member, or an ensemble-mean model's
/// (`ecmwf_ifs025_ensemble_mean`, …) `temperature_2m` and `temperature_2m_spread`.
public struct OpenMeteoEnsembleClient: EnsembleFetcher {
    let client: OpenMeteoClient
    let source: OpenMeteoEnsembleDecoder.Source
    /// Members per location the weight is charged for (1 for mean and spread).
    public let members: Int

    /// A client over `client`'s HTTP client and clock with `configuration` (its `path`
    /// becomes `/v1/ensemble`, its variables `temperature_2m`). `members` is the models' member
    /// count summed (nil: from `EnsembleWeight.knownMembers`, 1 for `spread`).
    public init(client: OpenMeteoClient, configuration: OpenMeteoSettings, probability: ProbabilitySource, members: Int? = nil) {
        var settings = configuration
        settings.path = OpenMeteoSettings.ensemblePath
        // A mean model answers the spread only when asked for it.
        settings.hourlyVariables = probability == .members ? ["temperature_2m"] : ["temperature_2m", "temperature_2m_spread"]
        self.client = OpenMeteoClient(httpClient: client.makeHTTPClient, configuration: settings, clock: client.clock, logger: client.logger)
        self.source = probability == .members ? .members : .spread
        if probability == .members {
            self.members = members ?? settings.models.map { EnsembleWeight.knownMembers[$0] ?? 1 }.reduce(0, +)
        } else {
            self.members = 1
        }
    }

    /// How this client talks to its server.
    public var configuration: OpenMeteoSettings { client.configuration }

    public var batchSize: Int { client.configuration.batchSize }

    /// `max(1, variables × members / 10 × max(1, days / 14))`.
    public var weightPerLocation: Double {
        EnsembleWeight.perLocation(
            variables: client.configuration.hourlyVariables.count, members: max(1, members), days: client.configuration.forecastDays)
    }

    public func ensembles(for boxes: [GeoBox], gate: (any RequestGate)?) async -> Result<[EnsembleForecast], ForecastFailure> {
        let settings = client.configuration
        let source = self.source
        return await client.fetch(boxes, gate: gate) { body, boxes, now throws(OpenMeteoDecodingError) in
            try OpenMeteoEnsembleDecoder.ensembles(
                from: body, for: boxes, models: settings.models, source: source, maximumGridDistance: settings.maximumGridDistanceDegrees
            ).map { ensemble in
                var stamped = ensemble
                stamped.fetchedAt = now
                return stamped
            }
        }
    }

    /// The query (without `?`) for `boxes`.
    public func query(for boxes: [GeoBox]) -> String { client.query(for: boxes) }
}
