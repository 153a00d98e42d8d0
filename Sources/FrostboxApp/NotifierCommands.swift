import FrostboxCore
import FrostboxNotifier
import FrostboxSQLite
import Logging

/// What `frostbox notify` and `frostbox runs` do, so the executable stays a thin front.
public enum NotifierCommands {
    /// One notify run now on the database of `config`. A dry run plans and reports the alerts
    /// through `report` but stores and sends nothing.
    public static func notifyOnce(config: FrostboxConfig, dryRun: Bool, logger: Logger, report: @escaping @Sendable (String) -> Void) async throws -> Notifier.RunResult {
        let components = try FrostboxApplication.Components(config: config, logger: logger)
        let result: Result<Notifier.RunResult, any Error>
        do {
            result = .success(
                try await components.notifier.notifier.run(dryRun: dryRun) { entries in
                    guard dryRun else { return }
                    for entry in entries { report(describe(entry)) }
                })
        } catch {
            result = .failure(error)
        }
        try? await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
        return try result.get()
    }

    /// The latest runs of the database at `databasePath`, newest first.
    public static func recentRuns(databasePath: String, limit: Int, logger: Logger) async throws -> [NotifyRunSummary] {
        let database = try FrostboxDatabase(path: databasePath, logger: logger)
        return try await GRDBNotifierStore(database: database).recentRuns(limit: limit)
    }

    /// One line per planned alert: device (redacted), event and text.
    public static func describe(_ entry: OutboxEntry) -> String {
        let alert = entry.notification.payload.aps.alert
        return "would send to \(entry.token.redacted) [\(entry.kind.rawValue) \(entry.event)]: \(alert?.title ?? "") — \(alert?.body ?? "")"
    }
}
