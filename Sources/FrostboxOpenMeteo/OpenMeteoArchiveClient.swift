import AsyncHTTPClient
import Foundation
import FrostboxCore

/// The Open-Meteo `/v1/archive` (historical weather) client (issue #48): what happened at
/// each box, hourly `temperature_2m` over whole UTC days (`start_date` … `end_date`,
/// `timezone=GMT`), through the forecast client's requests, batching, deadlines, body cap,
/// retries and quota gate. The archive lives on its own host
/// (`https://archive-api.open-meteo.com`); its model defaults to `ecmwf_ifs` (the IFS
/// analysis, without ERA5's delay of about five days).
public struct OpenMeteoArchiveClient: ObservationFetcher {
    let client: OpenMeteoClient

    /// The free archive API's host.
    public static let defaultBaseURL = "https://archive-api.open-meteo.com"
    /// The model what happened is read from: ECMWF IFS at 9 km, 2017 onwards, updated daily.
    public static let defaultModel = "ecmwf_ifs"

    /// A client over `client`'s HTTP client, clock and logger with `configuration` (its `path`
    /// becomes `/v1/archive`, its variables `temperature_2m`, its time zone `GMT`).
    public init(
        client: OpenMeteoClient,
        configuration: OpenMeteoSettings = OpenMeteoSettings(baseURL: OpenMeteoArchiveClient.defaultBaseURL, models: [OpenMeteoArchiveClient.defaultModel])
    ) {
        var settings = configuration
        settings.path = OpenMeteoSettings.archivePath
        settings.hourlyVariables = ["temperature_2m"]
        settings.timezone = "GMT"
        settings.dateRange = nil
        self.client = OpenMeteoClient(httpClient: client.makeHTTPClient, configuration: settings, clock: client.clock, logger: client.logger)
    }

    /// How this client talks to its server (without a date range: each call sets its own).
    public var configuration: OpenMeteoSettings { client.configuration }

    public var batchSize: Int { client.configuration.batchSize }

    /// `max(1, variables / 10 × max(1, days / 14))`, the one variable counted again per model.
    public func weightPerLocation(days: Int) -> Double {
        OpenMeteoSettings.weightPerLocation(variables: client.configuration.hourlyVariables.count * max(1, client.configuration.models.count), days: days)
    }

    public func observations(
        for boxes: [GeoBox], from first: LocalDate, through last: LocalDate, gate: (any RequestGate)?
    ) async -> Result<[ObservedHours], ForecastFailure> {
        guard first <= last else { return .failure(.invalidResponse("the archive's first day \(first) is after its last \(last)")) }
        let dated = dated(first, last)
        let settings = dated.configuration
        return await dated.fetch(boxes, gate: gate) { body, boxes, _ throws(OpenMeteoDecodingError) in
            try OpenMeteoArchiveDecoder.observations(
                from: body, for: boxes, models: settings.models, maximumGridDistance: settings.maximumGridDistanceDegrees)
        }
    }

    /// The query (without `?`) for `boxes` over UTC dates `first` through `last`.
    public func query(for boxes: [GeoBox], from first: LocalDate, through last: LocalDate) -> String {
        dated(first, last).query(for: boxes)
    }

    /// The request (a GET, or a form POST when too long) for `boxes` over `first` through `last`.
    public func makeRequest(_ boxes: [GeoBox], from first: LocalDate, through last: LocalDate) -> HTTPClientRequest {
        dated(first, last).makeRequest(boxes)
    }

    /// The client asking for `first` through `last` (swapped if reversed: a range cannot run backwards).
    func dated(_ first: LocalDate, _ last: LocalDate) -> OpenMeteoClient {
        var settings = client.configuration
        settings.dateRange = min(first, last)...max(first, last)
        return client.with(settings)
    }
}
