import FrostboxApp
import FrostboxCore
import FrostboxOpenMeteo
import Logging
import Testing

/// `forecast.probability`, `forecast.min_probability` and `forecast.ensemble.*` (issue #47).
@Suite("Chance of frost settings")
struct ProbabilitySettingsTests {
    static let quiet = Logger(label: "config", factory: { _ in SwiftLogNoOpLogHandler() })

    static func load(environment: [String: String] = [:], overrides: [String: String] = [:]) async throws -> FrostboxSettings {
        try await ConfigLoader.load(ConfigLoader.Sources(environment: environment, overrides: overrides), logger: quiet)
    }

    @Test("defaults: spread from ecmwf_ifs025_ensemble_mean on Open-Meteo's ensemble host, alerted at 0.5")
    func defaults() async throws {
        let forecasts = try await Self.load().forecasts
        #expect(forecasts.probability == .spread)
        #expect(forecasts.defaultMinProbability == 0.5)
        #expect(forecasts.ensembleModels == ["ecmwf_ifs025_ensemble_mean"])
        let ensemble = forecasts.ensembleClientConfiguration
        #expect(ensemble.endpoint == "https://ensemble-api.open-meteo.com/v1/ensemble")
        #expect(ensemble.models == ["ecmwf_ifs025_ensemble_mean"])
    }

    @Test("the ensemble host follows the forecast host: the customer API's own, a self-hosted server itself, or as set")
    func hosts() async throws {
        let customer = try await Self.load(overrides: ["forecast.url": "https://customer-api.open-meteo.com"]).forecasts
        #expect(customer.ensembleClientConfiguration.endpoint == "https://customer-ensemble-api.open-meteo.com/v1/ensemble")
        let own = try await Self.load(overrides: ["forecast.url": "http://weather.internal:8080"]).forecasts
        #expect(own.ensembleClientConfiguration.endpoint == "http://weather.internal:8080/v1/ensemble")
        let set = try await Self.load(environment: ["FROSTBOX_FORECAST_ENSEMBLE_URL": "http://ens.internal"]).forecasts
        #expect(set.ensembleClientConfiguration.endpoint == "http://ens.internal/v1/ensemble")
    }

    @Test("members: icon_seamless by default; models pool; an unknown model needs its member count")
    func members() async throws {
        let icon = try await Self.load(overrides: ["forecast.probability": "members"]).forecasts
        #expect(icon.ensembleModels == ["icon_seamless"])
        let pooled = try await Self.load(overrides: ["forecast.probability": "members", "forecast.ensemble.models": "ecmwf_ifs025, gfs025"]).forecasts
        #expect(pooled.ensembleModels == ["ecmwf_ifs025", "gfs025"])
        let error = await #expect(throws: ConfigurationError.self) {
            try await Self.load(overrides: ["forecast.probability": "members", "forecast.ensemble.models": "my_eps"])
        }
        #expect(error?.key == "forecast.ensemble.members")
        let counted = try await Self.load(
            overrides: ["forecast.probability": "members", "forecast.ensemble.models": "my_eps", "forecast.ensemble.members": "25"]
        ).forecasts
        #expect(counted.ensembleMembers == 25)
        #expect(try await Self.load(overrides: ["forecast.probability": "off"]).forecasts.probability == .off)
    }

    @Test(
        "bad values are refused naming the key",
        arguments: [
            ("forecast.probability", "sometimes"), ("forecast.min_probability", "1.5"), ("forecast.min_probability", "-0.1"),
            ("forecast.ensemble.url", "ftp://x"), ("forecast.ensemble.models", "icon seamless"), ("forecast.ensemble.members", "-3"),
        ])
    func refused(key: String, value: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: [key: value]) }
        #expect(error?.key == key)
    }
}
