import AsyncHTTPClient
import FrostboxApp
import FrostboxOpenMeteo
import Logging
import Testing

@Suite("Forecast connection settings: the connect timeout is its own key")
struct ForecastConnectionSettingsTests {
    static let quiet = Logger(label: "config", factory: { _ in SwiftLogNoOpLogHandler() })

    static func load(environment: [String: String] = [:], overrides: [String: String] = [:]) async throws -> FrostboxSettings {
        try await ConfigLoader.load(ConfigLoader.Sources(environment: environment, overrides: overrides), logger: quiet)
    }

    @Test("forecast.connect_timeout and FROSTBOX_FORECAST_CONNECT_TIMEOUT set it; the default is 10 s")
    func connectTimeoutKey() async throws {
        let defaults = try await Self.load()
        #expect(defaults.forecasts.connectTimeoutSeconds == 10)
        let set = try await Self.load(overrides: ["forecast.connect_timeout": "250ms"])
        #expect(set.forecasts.connectTimeoutSeconds == 0.25)
        let environment = try await Self.load(environment: ["FROSTBOX_FORECAST_CONNECT_TIMEOUT": "2s"])
        #expect(environment.forecasts.connectTimeoutSeconds == 2)
        await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: ["forecast.connect_timeout": "1ms"]) }
    }

    @Test("the HTTP client is bounded by the connect timeout apart from the deadline and never retries a failed connection")
    func httpClientConfiguration() {
        var settings = ForecastSettings()
        settings.connectTimeoutSeconds = 0.5
        settings.requestTimeoutSeconds = 20
        let configuration = settings.clientConfiguration.httpClientConfiguration
        #expect(configuration.timeout.connect == .milliseconds(500))
        #expect(configuration.timeout.read == .seconds(20))
        #expect(configuration.connectionPool.retryConnectionEstablishment == false)
    }
}
