import Foundation
import FrostboxCore
import FrostboxForecasting
import FrostboxNotifier
import FrostboxSQLite
import Logging

/// What `frostbox notify` and `frostbox runs` do, so the executable stays a thin front.
public enum NotifierCommands {
    /// One notify run now on the database of `config`. A dry run plans and reports the alerts
    /// through `report` but stores and sends nothing, and it fetches nothing either: it plans
    /// from the forecasts the cache holds current — by model run when forecasts are run-aware,
    /// else by the TTL (`CachedForecastProvider.cacheOnly`) — so it writes no cache entry and
    /// charges no quota; boxes without one are reported as left out.
    public static func notifyOnce(
        config: FrostboxSettings, dryRun: Bool, logger: Logger, report: @escaping @Sendable (String) -> Void
    ) async throws -> Notifier.RunResult {
        let components = try await FrostboxApplication.Components.open(config: config, logger: logger)
        let notifier = dryRun ? dryRunNotifier(components, config: config, logger: logger) : components.notifier.notifier
        let result: Result<Notifier.RunResult, any Error>
        do {
            let outcome = try await components.database.withRunning {
                try await notifier.run(dryRun: dryRun) { entries in
                    guard dryRun else { return }
                    for entry in entries { report(describe(entry)) }
                }
            }
            if dryRun, case .completed(let summary) = outcome { report(dryRunCost(summary)) }
            result = .success(outcome)
        } catch {
            result = .failure(error)
        }
        try? await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
        return try result.get()
    }

    /// A notifier like the live one whose forecasts come from the cache only (in the demo, from
    /// its scenario, which fetches nothing either).
    static func dryRunNotifier(_ components: FrostboxApplication.Components, config: FrostboxSettings, logger: Logger) -> Notifier {
        let forecasts: any ForecastProvider = config.demo ? DemoForecastProvider() : components.forecasts.provider.cacheOnly
        return FrostboxApplication.makeNotifier(
            database: components.database, clock: components.clock, config: config, forecasts: forecasts,
            push: components.push, ensembles: config.demo ? nil : components.forecasts.ensembles?.cacheOnly, logger: logger
        ).notifier
    }

    /// What a dry run cost and left out.
    public static func dryRunCost(_ summary: NotifyRunSummary) -> String {
        "dry run: \(summary.forecastsCached) of \(summary.boxes) boxes planned from cached forecasts; "
            + "\(summary.boxesLeftOut) without a current cached forecast left out (a dry run fetches nothing: 0 requests, no quota used)"
    }

    /// The latest runs, newest first, and on PostgreSQL who worked on each (by run id; nil on SQLite).
    public static func recentRuns(
        config: FrostboxSettings, limit: Int, logger: Logger
    ) async throws
        -> (runs: [NotifyRunSummary], workers: [Int64: [NotifyRunWorker]]?)
    {
        let database = try await DeviceDatabase.open(config, logger: logger)
        let (store, _, queue) = database.notifier(leaseSeconds: config.notifier.leaseSeconds)
        return try await database.withRunning {
            let runs = try await store.recentRuns(limit: limit)
            return (runs, try await queue?.workers(ofRuns: runs.map(\.id)))
        }
    }

    /// One line per planned alert: device (redacted), event and text.
    public static func describe(_ entry: OutboxEntry) -> String {
        let content = entry.notification.content
        let held =
            entry.notBefore.map { " (held for quiet hours or a delivery window until \(Date(timeIntervalSince1970: TimeInterval($0)).formatted(.iso8601)))" }
            ?? ""
        let chance = content.frost?.probability.map { " (\($0) % chance)" } ?? ""
        return "would send to \(entry.token.redacted)\(held) [\(entry.kind.rawValue) \(entry.event)\(chance)]: \(content.title ?? "") — \(content.body ?? "")"
    }
}
