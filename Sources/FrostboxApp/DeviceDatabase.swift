import FrostboxCore
import FrostboxNotifier
import FrostboxPostgres
import FrostboxSQLite
import Logging
import ServiceLifecycle

/// Where devices, subscriptions, the notifier's state, the forecast cache and the quota
/// ledger live: the embedded SQLite file (the default), or a PostgreSQL database shared by
/// several instances (`database.url`). Places stay in each instance's own SQLite file.
public enum DeviceDatabase: Sendable {
    case sqlite(FrostboxDatabase)
    case postgres(PostgresDatabase)

    /// Opens the database `config` names: PostgreSQL when `database.url` is set (connecting and
    /// migrating), otherwise the SQLite file.
    public static func open(_ config: FrostboxSettings, logger: Logger) async throws -> DeviceDatabase {
        if let settings = config.postgres {
            logger.info("devices and notifier state on PostgreSQL", metadata: ["url": "\(settings.redacted)"])
            return .postgres(
                try await PostgresDatabase(
                    settings: settings, maximumConnections: config.postgresMaximumConnections,
                    connectionWait: config.postgresConnectionWait, logger: logger))
        }
        return .sqlite(try FrostboxDatabase(path: config.databasePath, placesPath: config.placesPath, logger: logger))
    }

    /// The PostgreSQL pool, as a service of `serve`'s group (listed first, it stops last, after
    /// everything that queries it); nil on SQLite, which needs none.
    public var service: (any Service)? {
        if case .postgres(let database) = self { return database }
        return nil
    }

    /// Waits until the running pool hands out a working connection (PostgreSQL; SQLite: at
    /// once), at most `wait`: `serve` accepts requests only then. Gives up with a warning: the
    /// requests meanwhile are answered 503 and `/ready` says why.
    public func warmUp(within wait: Duration = .seconds(10), logger: Logger) async {
        guard case .postgres(let database) = self else { return }
        do {
            try await database.warmUp(within: wait)
        } catch {
            logger.warning("no PostgreSQL connection ready yet; starting anyway", metadata: ["error": "\(error)"])
        }
    }

    /// Runs `body` with the database's pool running beside it (PostgreSQL; warmed up first) and
    /// stopped after it, for work outside `serve`'s service group: `notify --once`, `runs`, `forecast`.
    public func withRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        switch self {
        case .sqlite: try await body()
        case .postgres(let database): try await database.withRunning(body)
        }
    }

    /// The SQLite database, or nil on PostgreSQL.
    /// Where the push pacers keep their budgets: PostgreSQL's is the cluster's, shared by every
    /// instance; with SQLite (one process) nil, and each router keeps its own in memory.
    public var pushBudget: (any PushBudgetStore)? {
        if case .postgres(let database) = self { return PostgresPushBudget(database: database) }
        return nil
    }

    public var sqlite: FrostboxDatabase? {
        if case .sqlite(let database) = self { return database }
        return nil
    }

    public func subscriptions(maximumPerDevice: Int) -> any SubscriptionStore {
        switch self {
        case .sqlite(let database): GRDBSubscriptionStore(database: database, maximumSubscriptionsPerDevice: maximumPerDevice)
        case .postgres(let database): PostgresSubscriptionStore(database: database, maximumSubscriptionsPerDevice: maximumPerDevice)
        }
    }

    /// The notifier's store and what keeps runs apart: on SQLite a lock file beside the
    /// database (processes on this machine); on PostgreSQL the store is also the queue of runs
    /// shared by the cluster's instances (its claims last `leaseSeconds`). With
    /// `verifiedDevicesOnly`, runs leave out devices not yet proven real (`DeviceVerification`).
    public func notifier(
        leaseSeconds: Int64, verifiedDevicesOnly: Bool = false
    )
        -> (
            store: any NotifierStore & DeviceVerificationStore, runLock: (any NotifierRunLock)?, workQueue: (any NotifyWorkQueue)?
        )
    {
        switch self {
        case .sqlite(let database):
            return (
                GRDBNotifierStore(database: database, verifiedDevicesOnly: verifiedDevicesOnly),
                FileRunLock(path: database.path + ".notify-lock"), nil
            )
        case .postgres(let database):
            let store = PostgresNotifierStore(database: database, leaseSeconds: leaseSeconds, verifiedDevicesOnly: verifiedDevicesOnly)
            return (store, nil, store)
        }
    }

    public var forecastCache: any ForecastCache {
        switch self {
        case .sqlite(let database): GRDBForecastCache(database: database)
        case .postgres(let database): PostgresForecastCache(database: database)
        }
    }

    /// Ensembles per box as last fetched (issue #47).
    public var ensembleCache: any EnsembleCache {
        switch self {
        case .sqlite(let database): GRDBEnsembleCache(database: database)
        case .postgres(let database): PostgresEnsembleCache(database: database)
        }
    }

    /// Where the models' latest runs are shared among instances: PostgreSQL's `model_run`;
    /// nil on SQLite (one instance: its own memory serves).
    public var modelRunBook: (any ModelRunBook)? {
        switch self {
        case .sqlite: nil
        case .postgres(let database): PostgresModelRunBook(database: database)
        }
    }

    /// How many boxes have a cached forecast.
    public func cachedForecasts() async throws -> Int {
        switch self {
        case .sqlite(let database): try await GRDBForecastCache(database: database).count()
        case .postgres(let database): try await PostgresForecastCache(database: database).count()
        }
    }

    public func quotaLedger(budgets: QuotaBudgets) -> any QuotaLedger {
        switch self {
        case .sqlite(let database): GRDBQuotaLedger(database: database, budgets: budgets)
        case .postgres(let database): PostgresQuotaLedger(database: database, budgets: budgets)
        }
    }

    public var boxMap: any BoxMapSource {
        switch self {
        case .sqlite(let database): GRDBBoxMapSource(database: database)
        case .postgres(let database): PostgresBoxMapSource(database: database)
        }
    }

    /// Row counts for `/admin/stats` and the status page (places are counted in the places file).
    public func statistics() async throws -> DatabaseStatistics {
        switch self {
        case .sqlite(let database):
            return try await database.statistics()
        case .postgres(let database):
            let counts = try await database.statistics()
            return DatabaseStatistics(
                devices: counts.devices, devicesByPlatform: counts.devicesByPlatform, subscriptions: counts.subscriptions, boxes: counts.boxes,
                forecastsCached: counts.forecastsCached, outboxPendingByClass: counts.outboxPendingByClass)
        }
    }

    /// Alerts waiting in the outbox.
    public func outboxPending() async throws -> Int {
        switch self {
        case .sqlite(let database): try await database.outboxPending()
        case .postgres(let database): try await database.outboxPending()
        }
    }

    /// Whether every migration is applied (readiness).
    public func isMigrated() async throws -> Bool {
        switch self {
        case .sqlite(let database): try await database.isMigrated()
        case .postgres(let database): try await database.isMigrated()
        }
    }

    /// Readiness (`/ready`): migrated and taking writes (see `FrostboxDatabase.isReady` and
    /// `PostgresDatabase.isReady`).
    public func isReady() async -> Bool {
        switch self {
        case .sqlite(let database): await database.isReady()
        case .postgres(let database): await database.isReady()
        }
    }
}
