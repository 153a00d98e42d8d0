import Foundation
import FrostboxCore
import FrostboxForecasting
import FrostboxHTTP
import FrostboxNotifier
import FrostboxPostgres
import FrostboxSQLite
import Logging
import ServiceLifecycle

/// The notifier wired over the live adapters: the database's notifier store (SQLite, or
/// PostgreSQL with its cluster-wide work queue), the forecast provider and the push sender,
/// with the database's run lock (a file lock beside a SQLite file) so that runs of different
/// processes (`serve` and `notify --once`) never overlap.
public struct NotifierComponents: Sendable {
    public let store: any NotifierStore
    /// Runs shared with the cluster's other instances (PostgreSQL); nil on SQLite.
    public let workQueue: (any NotifyWorkQueue)?
    public let notifier: Notifier
    public let configuration: NotifierSettings
    /// Where devices wait to be proven real; nil when every device counts as verified.
    public let verification: (any DeviceVerificationStore)?
    /// Where kept nights are checked and scored (issue #48); nil when none are kept.
    public let nightChecks: (any NightCheckStore)?
    /// The thresholds nights are scored against: the configured rule's.
    public let thresholds: FrostThresholds

    /// Gateway reasons of a failed verification push that say the device cannot be pushed to:
    /// the token belongs to another app (APNs' 400 `DeviceTokenNotForTopic`), or every push to
    /// it takes the gateway's connection down, also when sent alone (the poison push of issue
    /// #28, `ConnectionLostWhenSentAlone`, from both push adapters), or it is a token of
    /// another Firebase project (FCM's 403 `SENDER_ID_MISMATCH`, the counterpart of
    /// `DeviceTokenNotForTopic`). The device is removed, as for a dead token.
    public static let removingReasons: Set<String> = ["DeviceTokenNotForTopic", "SENDER_ID_MISMATCH", "ConnectionLostWhenSentAlone"]

    /// Wires the notifier over `database` with the given forecast and push capabilities.
    public init(
        database: DeviceDatabase, clock: @escaping @Sendable () -> Int64, config: FrostboxSettings, forecasts: any ForecastProvider, push: any PushSender,
        ensembles: (any EnsembleProvider)? = nil, nightCheck: @Sendable (any NightCheckStore) -> (any NightChecking)? = { _ in nil },
        resent: @escaping @Sendable (Int) -> Void = { _ in }, logger: Logger
    ) {
        let (store, runLock, workQueue) = database.notifier(
            leaseSeconds: config.notifier.leaseSeconds, verifiedDevicesOnly: config.verifiesDevices)
        self.store = store
        self.workQueue = workQueue
        if let queue = workQueue {
            logger.info("notify runs shared with the cluster's other instances", metadata: ["worker": "\(queue.worker)"])
        }
        configuration = config.notifier
        let planner = AlertPlanner(
            defaultRuleName: config.alertRule, nightsAhead: config.alertNightsAhead, defaultMinProbability: config.forecasts.defaultMinProbability)
        let nightChecks = config.notifier.keepNights ? store as? any NightCheckStore : nil
        self.nightChecks = nightChecks
        thresholds = config.rule.thresholds
        notifier = Notifier(
            store: store, forecasts: forecasts, push: push, forecastCache: database.forecastCache,
            planner: planner,
            configuration: config.notifier,
            runLock: runLock, workQueue: workQueue,
            logger: logger, clock: clock, resent: resent, runEnded: { ProcessMemory.releaseFree() },
            verification: config.verifiesDevices
                ? DeviceVerificationStep(store: store, removingReasons: Self.removingReasons, pendingTTL: config.pendingDeviceTTLSeconds) : nil,
            ensembles: ensembles, nightCheck: nightChecks.flatMap { nightCheck($0) })
        verification = config.verifiesDevices ? store : nil
    }

    /// The scores of the checked nights since a date (`GET /admin/verification`, `frostbox verify`).
    public var overview: (@Sendable (LocalDate?) async throws -> VerificationOverview)? {
        guard let nightChecks else { return nil }
        let thresholds = thresholds
        return { since in try await VerificationOverview.load(from: nightChecks, since: since, thresholds: thresholds) }
    }

    /// The scheduled runs, as a service of `frostbox serve`.
    public func service(logger: Logger) -> NotifierService {
        NotifierService(notifier: notifier, configuration: configuration, logger: logger)
    }

    /// Starts a run now for `POST /admin/notify`, unless one is going.
    public func trigger() async throws -> AdminRoutes.NotifyTrigger {
        switch try await notifier.trigger() {
        case .started(let runID): .started(runID: runID)
        case .alreadyRunning: .alreadyRunning
        }
    }
}

extension FrostboxApplication {
    /// The notifier of this process over the live forecast provider and push sender. Runs
    /// ask for boxes in chunks that are a multiple of the forecast batch size, so a run makes
    /// ⌈boxes / batch⌉ requests. `push` is the process's push capability (`PushComponents`:
    /// APNs, or the log-only sink when no app is configured).
    static func makeNotifier(
        database: DeviceDatabase, clock: @escaping @Sendable () -> Int64, config: FrostboxSettings, forecasts: any ForecastProvider, push: any PushSender,
        ensembles: (any EnsembleProvider)? = nil, nightCheck: @Sendable (any NightCheckStore) -> (any NightChecking)? = { _ in nil },
        resent: @escaping @Sendable (Int) -> Void = { _ in }, logger: Logger
    ) -> NotifierComponents {
        var config = config
        let batch = max(1, config.forecasts.batchSize)
        let chunk = max(config.notifier.boxesPerChunk, batch)
        config.notifier.boxesPerChunk = (chunk + batch - 1) / batch * batch
        return NotifierComponents(
            database: database, clock: clock, config: config, forecasts: forecasts, push: push, ensembles: ensembles, nightCheck: nightCheck,
            resent: resent, logger: logger)
    }
}

extension ForecastComponents {
    /// The night check of `config` over `store` (issue #48): the archive beside the forecast
    /// server, the forecasts' quota ledger under the check's share, regions from the places in use.
    func nightChecker(
        _ store: any NightCheckStore, config: FrostboxSettings, places: PlacesInUse, logger: Logger
    ) -> NightChecker {
        var settings = NightChecker.Settings()
        settings.afterDays = config.verification.afterDays
        settings.budgetShare = config.verification.budgetShare
        settings.samplePerStratum = config.verification.samplePerRegion
        settings.leaseSeconds = config.notifier.leaseSeconds
        return NightChecker(
            store: store, fetcher: archive(config.verification), ledger: ledger, regions: GRDBRegionLocator(places: places), settings: settings,
            owner: PostgresNotifierStore.defaultWorker, logger: logger)
    }
}
