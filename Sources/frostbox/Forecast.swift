import ArgumentParser
import FrostboxApp
import FrostboxCore
import Foundation
import Logging

/// `frostbox forecast --near LAT,LON`: the box's forecast (cache or fetched) and its frost verdict.
struct Forecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the forecast source and frost verdict of the box containing a point.")

    @Option(help: "The point, as LAT,LON (e.g. 60.19,25.01).") var near: String
    @Option(help: "Open-Meteo base URL (forecast.url; env FROSTBOX_FORECAST_URL; default https://api.open-meteo.com).") var baseURL: String?
    @Option(help: "Open-Meteo API key (forecast.api_key; env FROSTBOX_FORECAST_API_KEY).") var apiKey: String?
    @Option(help: ArgumentHelp("Frost rule preset: \(FrostRule.presetNameList) (default: the configured alert rule).")) var rule: String?
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let point: Coordinate
        do {
            point = try Coordinate(parsing: near, field: "--near")
        } catch let error as FrostboxCore.ValidationError {
            throw ValidationError(error.message)
        }
        var logger = Logger(label: "frostbox.forecast")
        logger.logLevel = .warning
        let config = try await options.load(
            command: "forecast", named: ["forecast.url": baseURL, "forecast.api_key": apiKey], logger: logger)
        let ruleName = rule ?? config.alertRule
        guard let preset = FrostRule.presets[ruleName] else { throw ValidationError("--rule is \(FrostRule.presetNameList)") }
        let report = try await FrostboxApplication.forecastReport(near: point, rule: preset, config: config, logger: logger)
        for line in report.lines { print(line) }
        if case .failure = report.result { throw ExitCode.failure }
    }
}
