import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxForecasting
import FrostboxOpenMeteo
import FrostboxSQLite
import Logging
import ServiceLifecycle
import Synchronization

/// The live forecast capability. Open-Meteo's part: one `HTTPClient` (created on the first
/// request; shut it down with `shutdown()` on exit) and the Open-Meteo client, the
/// `ForecastFetcher`. The rest is the source's neutral forecasting (`FrostboxForecasting`):
/// the database's cache and quota ledger (SQLite or PostgreSQL) and the `ForecastProvider`
/// over them that the notifier and `frostbox forecast` use.
public struct ForecastComponents: Sendable {
    /// The HTTP client of forecast requests (this component's own).
    let httpClient: ForecastHTTPClient
    public let client: OpenMeteoClient
    public let cache: any ForecastCache
    public let ledger: any QuotaLedger
    /// Cache → batched requests → ledger.
    public let provider: CachedForecastProvider
    /// The ensembles of the chance of frost, through the same ledger; nil when
    /// `forecast.probability` is off.
    public let ensembles: CachedEnsembleProvider?
    public let settings: ForecastSettings

    public init(database: DeviceDatabase, settings: ForecastSettings, logger: Logger) {
        self.settings = settings
        let httpClient = ForecastHTTPClient(settings: settings, logger: logger)
        self.httpClient = httpClient
        client = OpenMeteoClient(
            httpClient: { httpClient.client }, configuration: settings.clientConfiguration, clock: SystemForecastClock(), logger: logger)
        cache = database.forecastCache
        ledger = database.quotaLedger(budgets: settings.budgets)
        var runAwareness: CachedForecastProvider.RunAwareness?
        if settings.runAware {
            let meta = OpenMeteoMetaClient(httpClient: { httpClient.client }, configuration: settings.clientConfiguration, logger: logger)
            runAwareness = .init(
                board: ModelRunBoard(source: meta, book: database.modelRunBook, logger: logger), models: settings.models,
                freshness: settings.runFreshness)
        }
        let tuning = CachedForecastProvider.Settings(
            maximumQuotaWaitSeconds: settings.maximumQuotaWaitSeconds, maximumConcurrentRequests: settings.maximumConcurrentRequests)
        provider = CachedForecastProvider(
            fetcher: client, cache: cache, ledger: ledger, freshness: ForecastFreshness(ttlSeconds: settings.cacheTTLSeconds),
            settings: tuning, runAwareness: runAwareness, logger: logger)
        ensembles = Self.ensembles(
            client: client, httpClient: { httpClient.client }, database: database, ledger: ledger, settings: settings, tuning: tuning, logger: logger)
    }

    /// The ensemble provider of `settings` (nil when the probability is off): its own client on
    /// the ensemble host over the same HTTP client, its own cache, the forecasts' ledger, and
    /// run awareness by the ensemble models' runs.
    static func ensembles(
        client: OpenMeteoClient, httpClient: @escaping @Sendable () -> HTTPClient, database: DeviceDatabase, ledger: any QuotaLedger,
        settings: ForecastSettings,
        tuning: CachedForecastProvider.Settings, logger: Logger
    ) -> CachedEnsembleProvider? {
        guard settings.probability != .off else { return nil }
        let configuration = settings.ensembleClientConfiguration
        let fetcher = OpenMeteoEnsembleClient(
            client: client, configuration: configuration, probability: settings.probability, members: settings.ensembleMembers)
        var runAwareness: CachedForecastProvider.RunAwareness?
        if settings.runAware {
            let meta = OpenMeteoMetaClient(httpClient: httpClient, configuration: fetcher.configuration, logger: logger)
            runAwareness = .init(
                board: ModelRunBoard(source: meta, book: database.modelRunBook, logger: logger), models: .models(configuration.models),
                freshness: settings.runFreshness)
        }
        return CachedEnsembleProvider(
            fetcher: fetcher, cache: database.ensembleCache, ledger: ledger, freshness: ForecastFreshness(ttlSeconds: settings.cacheTTLSeconds),
            settings: tuning, runAwareness: runAwareness, logger: logger)
    }

    /// The archive client of the night check (issue #48): the forecast client's settings (API
    /// key, deadlines, body cap, attempts) on the archive's host, with its model.
    public func archive(_ verification: VerificationSettings) -> OpenMeteoArchiveClient {
        var configuration = settings.clientConfiguration
        configuration.baseURL = verification.url ?? settings.archiveBaseURL
        configuration.models = verification.model.isEmpty ? [] : [verification.model]
        return OpenMeteoArchiveClient(client: client, configuration: configuration)
    }

    /// Shuts the HTTP client down; call once, on exit.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }
}

/// Owns the forecast `HTTPClient`: created on first use (so wiring that never forecasts opens
/// nothing), shut down by `shutdown()`, or, if the owner forgot, when it is released.
final class ForecastHTTPClient: Sendable {
    private let state = Mutex<HTTPClient?>(nil)
    private let settings: ForecastSettings
    private let logger: Logger

    init(settings: ForecastSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    var client: HTTPClient {
        state.withLock { client in
            if let client { return client }
            let created = HTTPClient(
                eventLoopGroupProvider: .singleton, configuration: settings.clientConfiguration.httpClientConfiguration, backgroundActivityLogger: logger)
            client = created
            return created
        }
    }

    func shutdown() async throws {
        let client = state.withLock { client in
            defer { client = nil }
            return client
        }
        try await client?.shutdown()
    }

    deinit {
        // An HTTPClient must be shut down before it is released; the task keeps it alive until then.
        if let client = state.withLock({ $0 }) {
            Task { try? await client.shutdown() }
        }
    }
}

/// What `frostbox forecast` finds for one box (the CLI renders it).
public struct ForecastReport: Sendable {
    public let box: GeoBox
    public let result: Result<SourcedForecast, ForecastFailure>
    public let rule: FrostRule
    public let requestsMade: Int
    public let weightUsed: Double
    public let usage: QuotaUsage?
    /// The server's pause recorded in the ledger (a 429 naming a window), if one is in force.
    public let pause: QuotaHold?
    /// The box's ensemble (issue #47) and how it was had; nil when `forecast.probability` is off.
    public var ensemble: EnsembleReport? = nil

    /// What `frostbox forecast` finds of a box's ensemble.
    public struct EnsembleReport: Sendable {
        public let source: ProbabilitySource
        public let result: Result<EnsembleForecast, ForecastFailure>
        public let origin: ForecastSource?
        /// Quota weight per box of an ensemble request, and what this report's request cost.
        public let weightPerBox: Double
        public let weightUsed: Double
    }

    /// What to try when the forecast server could not be reached, or nil.
    public var hint: String? {
        guard case .failure(let failure) = result, OpenMeteoClient.isUnreachable(failure) else { return nil }
        return "Is the forecast server running at that address? Point frostbox at another with --base-url URL (or forecast.url, FROSTBOX_FORECAST_URL)."
    }
}

extension FrostboxApplication {
    /// `frostbox forecast`: the forecast and verdict of the box containing `coordinate`.
    public static func forecastReport(near coordinate: Coordinate, rule: FrostRule, config: FrostboxSettings, logger: Logger) async throws -> ForecastReport {
        let database = try await DeviceDatabase.open(config, logger: logger)
        let forecasts = ForecastComponents(database: database, settings: config.forecasts, logger: logger)
        let box = coordinate.box
        let now = Int64(Date().timeIntervalSince1970)
        let (batch, ensembles, usage, pause) = try await database.withRunning {
            // The demo's forecasts are the built-in scenario's, as `serve --demo` plans with.
            let provider: any ForecastProvider = config.demo ? DemoForecastProvider() : forecasts.provider
            let batch = await provider.forecasts(for: [box], now: now)
            let ensembles = config.demo ? nil : await forecasts.ensembles?.ensembles(for: [box], now: now)
            let usage = try? await forecasts.ledger.usage(at: now)
            let pause = try? await forecasts.ledger.activeHold(at: Int64(Date().timeIntervalSince1970))
            return (batch, ensembles, usage, pause)
        }
        try await forecasts.shutdown()
        let result: Result<SourcedForecast, ForecastFailure> =
            if let sourced = batch.forecasts[box] { .success(sourced) } else { .failure(batch.failures[box] ?? .budgetExhausted(retryAfter: nil)) }
        var report = ForecastReport(
            box: box, result: result, rule: rule, requestsMade: batch.requestsMade + (ensembles?.requestsMade ?? 0),
            weightUsed: batch.weightUsed + (ensembles?.weightUsed ?? 0), usage: usage, pause: pause ?? nil)
        if let ensembles, let weight = forecasts.ensembles?.fetcher.weightPerLocation {
            let found: Result<EnsembleForecast, ForecastFailure> =
                if let ensemble = ensembles.ensembles[box] { .success(ensemble) } else {
                    .failure(ensembles.failures[box] ?? .budgetExhausted(retryAfter: nil))
                }
            report.ensemble = .init(
                source: config.forecasts.probability, result: found, origin: ensembles.sources[box], weightPerBox: weight, weightUsed: ensembles.weightUsed)
        }
        return report
    }
}

/// Shuts the forecast HTTP client down when `serve` stops. Listed first among the
/// background services, it stops last: after the notifier's last request.
struct ForecastShutdownService: Service {
    let forecasts: ForecastComponents

    func run() async throws {
        try? await gracefulShutdown()
        try await forecasts.shutdown()
    }
}
