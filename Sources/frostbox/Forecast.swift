import ArgumentParser
import Foundation
import FrostboxApp
import FrostboxCore
import Logging

/// `frostbox forecast --near LAT,LON`: the box's forecast (cache or fetched) and its frost verdict.
struct Forecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the forecast source and frost verdict of the box containing a point.")

    @Option(help: "The point, as LAT,LON (e.g. 60.19,25.01).") var near: String
    @Option(help: "Open-Meteo base URL (forecast.url; env FROSTBOX_FORECAST_URL; default https://api.open-meteo.com).") var baseURL: String?
    @Option(help: "Open-Meteo API key (forecast.api_key; env FROSTBOX_FORECAST_API_KEY).") var apiKey: String?
    @Option(help: ArgumentHelp("Frost rule preset: \(FrostRule.presetNameList) (default: the configured alert rule).")) var rule: String?
    @Flag(help: "The demo's forecasts (the built-in frost scenario of `serve --demo`), not Open-Meteo.") var demo = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        if case .failure(let error) = Self.point(near) { throw ValidationError(error.message) }
    }

    func run() async throws {
        let point = try Self.point(near).get()
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
