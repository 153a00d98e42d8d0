import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxHTTP
import FrostboxPlaceImport
import FrostboxSQLite
import FrostboxWebPush
import Hummingbird
import Logging
import ServiceLifecycle

/// The composition root: opens the live adapters and wires them into the HTTP application.
public enum FrostboxApplication {
    /// The router type every Frostbox server runs.
    public typealias App = Application<RouterResponder<FrostboxRequestContext>>

    /// The live parts, opened once and shared by the server and the CLI commands.
    public struct Components: Sendable {
        /// Devices, subscriptions, the notifier's state, forecast cache and ledger: the SQLite
        /// file, or a shared PostgreSQL (`database.url`).
        public let database: DeviceDatabase
        /// The places file in use (GeoNames reference data), apart from the device database so
        /// that imports never hold the device database's write lock; with generations
        /// (`places.path` a directory or a link), switched while the server runs.
        public let placesInUse: PlacesInUse
        /// Checks for a newer places generation (the watch service and the admin route).
        public let placesReloader: PlacesReloader
        /// The places file new searches read now.
        public var placesDatabase: PlacesDatabase { placesInUse.database }
        public let subscriptions: any SubscriptionStore
        public let clock: @Sendable () -> Int64
        /// Place search over the GeoNames tables (`PlaceImport` fills them).
        public let places: any PlaceIndex
        /// Metrics, report, limits and admin access (`FrostboxApplication+Operations.swift`).
        public let operations: OperationsComponents
        /// Notify runs: planning, the outbox, delivery (`NotifierComponents.swift`).
        public let notifier: NotifierComponents
        /// Open-Meteo client, forecast cache, quota ledger and the provider over them
        /// (`ForecastComponents.swift`); owns an HTTP client, shut down by `shutdown()`.
        public let forecasts: ForecastComponents
        /// The push capability (APNs, or the log-only sink), measured; the notifier and
        /// `POST /admin/push-test` send through it.
        public let push: any PushSender
        /// The APNs router over the configured apps (or the log-only sink) behind `push`; owns
        /// the APNs connections, closed by `shutdown()`.
        public let pushComponents: PushComponents
        /// The configured rule preset without per-subscription overrides: the status map's verdicts.
        public let alertRule: FrostRule
        /// How many new boxes one client may start per hour (`limits.new_boxes_per_hour`); nil: no limit.
        public let newPlaces: NewPlaceLimit?
        /// The demo's forecasts (`serve --demo`), which the notifier plans from and the status
        /// map shows; nil outside the demo.
        public let demoScenario: DemoForecastProvider?

        /// Opens the database `config` names (PostgreSQL when `database.url` is set) and wires
        /// the components over it.
        public static func open(config: FrostboxSettings, logger: Logger) async throws -> Components {
            try Components(config: config, database: try await DeviceDatabase.open(config, logger: logger), logger: logger)
        }

        /// The components over the SQLite file of `config` (tests and tools; `open` also
        /// reaches PostgreSQL).
        public init(config: FrostboxSettings, logger: Logger) throws {
            if config.postgres != nil {
                throw ConfigurationError(key: "database.url", source: "settings", "a PostgreSQL database is opened with Components.open")
            }
            try self.init(
                config: config, database: .sqlite(try FrostboxDatabase(path: config.databasePath, placesPath: config.placesPath, logger: logger)),
                logger: logger)
        }

        public init(config: FrostboxSettings, database: DeviceDatabase, logger: Logger) throws {
            self.database = database
            do {
                placesInUse = try PlacesInUse(path: config.placesPath, logger: logger)
            } catch let error as PlaceGenerationError {
                // A generations directory that cannot be made or holds no generation yet is the
                // setting's to fix (exit 78 naming it), not a crash.
                throw ConfigurationError(key: "places.path", source: "settings", error.description)
            } catch {
                throw SQLiteUnavailability.classify(error, systemErrno: errno, path: config.placesPath) ?? error
            }
            subscriptions = database.subscriptions(maximumPerDevice: config.maximumSubscriptionsPerDevice)
            clock = { Int64(Date().timeIntervalSince1970) }
            alertRule = config.rule
            newPlaces =
                config.newBoxesPerHour > 0
                ? NewPlaceLimit(
                    perHour: config.newBoxesPerHour, ipv6PrefixLength: config.newBoxesIPv6Prefix, trustedProxies: config.rateLimit.trustedProxies)
                : nil
            places = GRDBPlaceIndex(places: placesInUse)
            operations = OperationsComponents(config: config)
            placesReloader = PlacesReloader(places: placesInUse, metrics: operations.telemetry.factory)
            forecasts = ForecastComponents(database: database, settings: config.forecasts, logger: logger)
            do {
                let web = try WebPushComponents(
                    settings: config.demo ? WebPushSettings() : config.webPush, directory: subscriptions as? any WebPushDirectory,
                    budget: database.pushBudget, logger: logger)
                pushComponents = try PushComponents(
                    settings: config.demo ? APNsSettings() : config.apns, fcm: config.demo ? FCMSettings() : config.fcm, web: web,
                    budget: database.pushBudget, logger: logger)
            } catch let error as WebPushServicesError {
                throw ConfigurationError(key: "webpush.push_services", source: "settings", error.description)
            } catch let error as PushConfigurationError {
                // Start-up stops on it like on any other configuration error (exit 78).
                throw ConfigurationError(key: nil, source: "push apps", error.message)
            }
            if config.verifyDevicesSetting == true, !config.demo, pushComponents.reach.takesEverything {
                // The log-only sink proves no device real: every device would stay pending.
                throw ConfigurationError(
                    key: "devices.verify", source: "settings",
                    "is on but no APNs, FCM or Web Push app is configured: no device could ever be verified (configure an app, or leave devices.verify at auto)"
                )
            }
            push = operations.metered(pushComponents.sender, transport: pushComponents.gauges)
            demoScenario = config.demo ? DemoForecastProvider() : nil
            let forecastSource: any ForecastProvider = demoScenario ?? forecasts.provider
            if config.demo {
                logger.notice("demo mode: forecasts come from the built-in frost scenario (no network), pushes only go to this log")
                if config.adminToken == nil {
                    logger.notice("demo mode: no admin token made for the status page: the server listens beyond loopback; set admin.token")
                }
            }
            notifier = FrostboxApplication.makeNotifier(
                database: database, clock: clock, config: config,
                forecasts: operations.metered(forecastSource, ledger: forecasts.ledger), push: push,
                // The demo's scenario has no ensembles: its verdicts are the scenario's.
                ensembles: config.demo ? nil : forecasts.ensembles,
                // The demo's nights never happened: nothing to check them against.
                nightCheck: { [forecasts, placesInUse] store in
                    config.demo ? nil : forecasts.nightChecker(store, config: config, places: placesInUse, logger: logger)
                },
                resent: { [report = operations.report] count in report.resent(count) }, logger: logger)
        }
    }

    /// The API over the given components.
    public static func makeAPI(_ components: Components) -> FrostboxAPI {
        let database = components.database
        return FrostboxAPI(
            groups: publicRoutes(
                subscriptions: components.subscriptions, places: components.places, clock: components.clock,
                ready: { await database.isReady() }, newPlaces: components.newPlaces,
                verifiesDevices: components.notifier.verification != nil, reach: components.pushComponents.reach,
                webPush: components.pushComponents.web?.registration,
                placeCoverage: { [placesInUse = components.placesInUse] in try? await PlaceCoverage.hint(placesInUse.database) }
            )
                + operationsRoutes(
                    components.operations,
                    admin: AdminRoutes.Operations(
                        stats: adminStats(
                            database: database, places: components.placesInUse, runs: { try await components.notifier.store.recentRuns(limit: 10) },
                            workQueue: components.notifier.workQueue, verification: components.notifier.verification),
                        notify: components.notifier.trigger, pushSender: components.push,
                        reloadPlaces: placesReload(components.placesReloader), pendingDevices: components.notifier.verification,
                        verification: components.notifier.overview))
                + statusRoutes(components),
            requestTimeout: components.operations.requestTimeout,
            middlewares: operationsMiddlewares(components.operations))
    }

    /// The routes every server has (health, devices and subscriptions, place search) over
    /// any implementation of their ports: the live adapters here, in-memory doubles in tests.
    public static func publicRoutes(
        subscriptions: any SubscriptionStore, places: any PlaceIndex, clock: @escaping @Sendable () -> Int64,
        ready: @escaping @Sendable () async -> Bool, newPlaces: NewPlaceLimit? = nil, verifiesDevices: Bool = false,
        reach: PushReach = .logOnly, webPush: WebPushRegistration? = nil, placeCoverage: @escaping @Sendable () async -> String? = { nil }
    ) -> [FrostboxAPI.RouteGroup] {
        [
            HealthRoutes(ready: ready).add(to:),
            DeviceRoutes(
                store: subscriptions, clock: clock, newPlaces: newPlaces, verifiesDevices: verifiesDevices, reach: reach, webPush: webPush
            ).add(to:),
            PlaceRoutes(index: places, coverage: placeCoverage).add(to:),
            WebPushExampleRoutes().add(to:),
        ]
    }

    /// Long-running services that run beside the HTTP server in `serve` (each stops on
    /// graceful shutdown; they stop after the server, in reverse order of this list: the
    /// notifier first, the database's pool last, after every service that queries it).
    /// The notifier waits for `listening`: a server that cannot bind stops start-up before
    /// the notifier is scheduled.
    static func backgroundServices(
        _ components: Components, config: FrostboxSettings, logger: Logger, listening: ListeningGate = ListeningGate(opened: true)
    ) -> [any Service] {
        (components.database.service.map { [$0] } ?? []) + [
            PushShutdownService(push: components.pushComponents),
            ForecastShutdownService(forecasts: components.forecasts),
            OperationsReportService(
                report: components.operations.report, interval: components.operations.reportInterval, logger: logger,
                poolSize: { components.pushComponents.connectionsByPlatform.values.reduce(0, +) }, queueLength: outboxQueue(components.database),
                lastRun: { (try? await components.notifier.store.recentRuns(limit: 1).first).map { "\($0.id) \($0.status.rawValue)" } }),
            // Stops after the notifier service, before the final report and before the clients a
            // run needs are closed.
            TriggeredRunDrainService(stopTriggeredRun: { _ = await components.notifier.notifier.stopTriggeredRun() }, logger: logger),
            StartsWhenListening(base: components.notifier.service(logger: logger), listening: listening),
        ] + placesWatch(components, interval: config.placesWatchInterval)
    }

    /// The places watch service, when `places.path` holds generations and polling is on.
    static func placesWatch(_ components: Components, interval: Duration) -> [any Service] {
        guard components.placesInUse.layout != .file, interval > .zero else { return [] }
        return [PlacesWatchService(reloader: components.placesReloader, interval: interval)]
    }

    /// Builds the HTTP application for `config` over already opened `components`;
    /// `onListening` gets the bound port (useful with port 0).
    public static func build(
        config: FrostboxSettings, components: Components, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> App {
        makeApplication(router: makeAPI(components).makeRouter(), config: config, logger: logger, onListening: onListening)
    }
}
