import ArgumentParser
import Foundation
import FrostboxApp
import FrostboxCore
import Logging

/// `frostbox forecast --near LAT,LON` (or `--box 60.20#25.05`): the box's forecast (cache or
/// fetched), its frost verdict and, when ensembles are on, its chance of frost per night.
struct Forecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the forecast source, frost verdict and chance of frost of the box containing a point.")

    @Option(help: "The point, as LAT,LON (e.g. 60.19,25.01).") var near: String?
    @Option(help: "The box, as shown in logs and alerts (e.g. 60.20#25.05); instead of --near.") var box: String?
    @Option(help: "Open-Meteo base URL (forecast.url; env FROSTBOX_FORECAST_URL; default https://api.open-meteo.com).") var baseURL: String?
    @Option(help: "Open-Meteo API key (forecast.api_key; env FROSTBOX_FORECAST_API_KEY).") var apiKey: String?
    @Option(help: ArgumentHelp("Frost rule preset: \(FrostRule.presetNameList) (default: the configured alert rule).")) var rule: String?
    @Flag(help: "The demo's forecasts (the built-in frost scenario of `serve --demo`), not Open-Meteo.") var demo = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        _ = try point()
    }

    /// The point asked about: `--near`, or the centre of `--box`.
    func point() throws -> Coordinate {
        switch (near, box) {
        case (let near?, nil):
            if case .failure(let error) = Self.point(near) { throw ValidationError(error.message) }
            return try Self.point(near).get()
        case (nil, let box?):
            guard let parsed = GeoBox(text: box) else { throw ValidationError("--box must look like 60.20#25.05 (got \"\(box)\")") }
            return Coordinate(uncheckedLatitude: parsed.latitude, longitude: parsed.longitude)
        default:
            throw ValidationError("give --near LAT,LON or --box LAT#LON, one of them")
        }
    }

    func run() async throws {
        let point = try point()
        var logger = Logger(label: "frostbox.forecast")
        logger.logLevel = .warning
        let loaded = try await options.load(
            command: "forecast", named: ["forecast.url": baseURL, "forecast.api_key": apiKey], logger: logger)
        let config = demo ? loaded.demoMode() : loaded
        logger = Logger(label: "frostbox.forecast")
        logger.logLevel = .warning
        let ruleName = rule ?? config.alertRule
        guard let preset = FrostRule.presets[ruleName] else { throw ValidationError("--rule is \(FrostRule.presetNameList)") }
        let report = try await FrostboxApplication.forecastReport(near: point, rule: preset, config: config, logger: logger)
        for line in report.lines { print(line) }
        if case .failure = report.result { throw ExitCode.failure }
    }

    /// `--near` as a coordinate, through the core's one LAT,LON parser.
    static func point(_ text: String) -> Result<Coordinate, FrostboxCore.ValidationError> {
        Result { () throws(FrostboxCore.ValidationError) in try Coordinate(parsing: text, field: "--near") }
    }
}
