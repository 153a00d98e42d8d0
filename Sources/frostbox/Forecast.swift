import ArgumentParser
import FrostboxApp
import FrostboxCore
import Foundation
import Logging

/// `frostbox forecast --near LAT,LON`: the box's forecast (cache or fetched) and its frost verdict.
struct Forecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the forecast source and frost verdict of the box containing a point.")

    @Option(help: "The point, as LAT,LON (e.g. 60.19,25.01).") var near: String
    @Option(help: "SQLite database file (env FROSTBOX_DB; default ./frostbox.sqlite).") var db: String?
    @Option(help: "Open-Meteo base URL (env FROSTBOX_FORECAST_URL; default https://api.open-meteo.com).") var baseURL: String?
    @Option(help: "Open-Meteo API key (env FROSTBOX_FORECAST_API_KEY).") var apiKey: String?
    @Option(help: "Frost rule preset: default or legacy.") var rule = "default"

    func run() async throws {
        let parts = near.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], let point = try? Coordinate(latitude: lat, longitude: lon) else {
            throw ValidationError("--near takes LAT,LON with latitude in [-90, 90] and longitude in [-180, 180]")
        }
        guard let preset = FrostRule.presets[rule] else { throw ValidationError("--rule is default or legacy") }
        var config = FrostboxConfig()
        config.databasePath = db ?? ProcessInfo.processInfo.environment["FROSTBOX_DB"] ?? config.databasePath
        if let baseURL { config.forecasts.baseURL = baseURL }
        if let apiKey { config.forecasts.apiKey = apiKey }
        var logger = Logger(label: "frostbox.forecast")
        logger.logLevel = .warning
        let report = try await FrostboxApplication.forecastReport(near: point, rule: preset, config: config, logger: logger)
        for line in report.lines { print(line) }
        if case .failure = report.result { throw ExitCode.failure }
    }
}
