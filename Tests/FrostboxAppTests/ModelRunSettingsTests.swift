import FrostboxApp
import FrostboxCore
import FrostboxOpenMeteo
import Logging
import Testing

@Suite("Model run settings: forecast.models, the watch list and the run-aware cache's keys")
struct ModelRunSettingsTests {
    static let quiet = Logger(label: "config", factory: { _ in SwiftLogNoOpLogHandler() })

    static func load(environment: [String: String] = [:], overrides: [String: String] = [:]) async throws -> FrostboxSettings {
        try await ConfigLoader.load(ConfigLoader.Sources(environment: environment, overrides: overrides), logger: quiet)
    }

    @Test("no configuration: best_match with the default watch list, run-aware, 10 min delay, 12 h maximum age, TTL 1 h as fallback")
    func defaults() async throws {
        let forecasts = try await Self.load().forecasts
        #expect(forecasts.modelNames.isEmpty)
        #expect(forecasts.clientConfiguration.models.isEmpty)
        #expect(forecasts.models == .bestMatch(watchList: try ModelWatchList(parsing: OpenMeteoModels.bestMatchWatchList)))
        #expect(forecasts.runAware)
        #expect(forecasts.runFreshness == RunFreshness(consistencyDelaySeconds: 600, maximumAgeSeconds: 43_200, fallback: ForecastFreshness(ttlSeconds: 3_600)))
        #expect(forecasts.metaTimeoutSeconds == 5)
    }

    @Test("one model is sent as models= and every box depends on it; best_match sends none")
    func concreteModel() async throws {
        let forecasts = try await Self.load(environment: ["FROSTBOX_FORECAST_MODELS": "icon_d2"]).forecasts
        #expect(forecasts.models == .models(["icon_d2"]))
        let client = OpenMeteoClient(httpClient: { preconditionFailure("no request") }, configuration: forecasts.clientConfiguration, clock: NoClock())
        #expect(client.query(for: [GeoBox(latitudeIndex: 1_000, longitudeIndex: 200)]).hasSuffix("&models=icon_d2"))
        let bestMatch = try await Self.load(overrides: ["forecast.models": "best_match"]).forecasts
        #expect(
            !OpenMeteoClient(httpClient: { preconditionFailure("no request") }, configuration: bestMatch.clientConfiguration, clock: NoClock())
                .query(for: [GeoBox(latitudeIndex: 1_000, longitudeIndex: 200)]).contains("models="))
    }

    @Test("a list of models is sent in its order, each box depends on all of them, and each costs its variables again")
    func modelList() async throws {
        let forecasts = try await Self.load(overrides: ["forecast.models": "icon_d2, icon_eu"]).forecasts
        #expect(forecasts.modelNames == ["icon_d2", "icon_eu"])
        #expect(forecasts.models == .models(["icon_d2", "icon_eu"]))
        #expect(forecasts.models.models(for: GeoBox(latitudeIndex: 100, longitudeIndex: 3_000)) == ["icon_d2", "icon_eu"])
        let client = OpenMeteoClient(httpClient: { preconditionFailure("no request") }, configuration: forecasts.clientConfiguration, clock: NoClock())
        #expect(client.query(for: [GeoBox(latitudeIndex: 1_000, longitudeIndex: 200)]).hasSuffix("&models=icon_d2,icon_eu"))
        // 4 variables × 2 models = 8 < 10: still one call per location; 3 models = 12 → 1.2.
        #expect(forecasts.clientConfiguration.weightPerLocation == 1)
        let three = try await Self.load(overrides: ["forecast.models": "icon_d2,icon_eu,gfs_global"]).forecasts
        #expect(abs(three.clientConfiguration.weightPerLocation - 1.2) < 1e-9)
    }

    @Test("the watch list, run_aware, run_delay, max_age and meta_timeout are read", arguments: [false, true])
    func keys(_ runAware: Bool) async throws {
        let forecasts = try await Self.load(overrides: [
            "forecast.watch_list": "*=gfs_global", "forecast.run_aware": "\(runAware)", "forecast.run_delay": "5m", "forecast.max_age": "6h",
            "forecast.meta_timeout": "2s",
        ]).forecasts
        #expect(forecasts.watchList == ModelWatchList([.init(area: nil, models: ["gfs_global"])]))
        #expect(forecasts.runAware == runAware)
        #expect(forecasts.runDelaySeconds == 300)
        #expect(forecasts.maximumAgeSeconds == 21_600)
        #expect(forecasts.clientConfiguration.metaTimeoutSeconds == 2)
    }

    @Test(
        "bad values stop start-up naming the key",
        arguments: [
            ["forecast.models": "icon_d2,icon_d2"], ["forecast.models": "best_match,icon_eu"], ["forecast.models": "ICON"],
            ["forecast.models": "icon_d2,icon_eu,gfs_global,gfs_hrrr,ecmwf_ifs025,jma_msm"], ["forecast.models": " , "],
            ["forecast.watch_list": "europe=icon_d2"],
            ["forecast.max_age": "1m"], ["forecast.run_delay": "3h"],
        ])
    func refused(_ overrides: [String: String]) async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: overrides) }
        #expect(error?.key == overrides.keys.first)
    }
}

/// A clock for clients that never make a request.
struct NoClock: ForecastClock {
    func now() -> Int64 { 0 }
    func sleep(seconds: Double) async throws {}
    func randomFraction() -> Double { 0 }
}
