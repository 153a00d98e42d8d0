import FrostboxCore
import Logging

extension CachedForecastProvider {
    /// What makes a provider run-aware: where the models' latest runs are learnt, which
    /// models each box depends on, and the rule that says when a cached forecast is current.
    public struct RunAwareness: Sendable {
        public let board: ModelRunBoard
        public let models: ForecastModels
        public let freshness: RunFreshness

        public init(board: ModelRunBoard, models: ForecastModels, freshness: RunFreshness) {
            self.board = board
            self.models = models
            self.freshness = freshness
        }
    }

    /// Which boxes a call serves from the cache and which it fetches.
    struct Selection: Sendable {
        var missing: [GeoBox] = []
        /// Boxes served from the cache.
        var cached = 0
        /// Sets the model runs on fetched forecasts.
        var stamp: @Sendable ([BoxForecast]) -> [BoxForecast] = { $0 }
    }

    /// Serves the current cached forecasts into `batch` and says which boxes are to be fetched:
    /// by model run when the provider is run-aware, else by the time-based TTL.
    func select(_ boxes: [GeoBox], now: Int64, into batch: inout ForecastBatch) async -> Selection {
        let cache = self.cache
        let chosen = await CacheSelection<BoxForecast>.choose(
            boxes, now: now, runAwareness: runAwareness, freshness: freshness, logger: logger,
            lookup: { try await cache.forecasts(for: $0, fetchedSince: $1) })
        for (box, forecast) in chosen.fresh { batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .cache) }
        batch.currentByRun += chosen.currentByRun
        batch.runChecks = chosen.runChecks
        batch.latestRuns = chosen.latestRuns
        batch.newRuns = chosen.newRuns
        return Selection(missing: chosen.missing, cached: chosen.fresh.count, stamp: chosen.stamp)
    }
}

/// Which boxes are served from a cache (forecasts or ensembles) and which are fetched: by
/// model run when run-aware, else by the time-based TTL.
struct CacheSelection<Payload: BoxPayload>: Sendable {
    var fresh: [GeoBox: Payload] = [:]
    var missing: [GeoBox] = []
    var currentByRun = 0
    var runChecks = 0
    var latestRuns: [ModelRun] = []
    var newRuns: [ModelRun] = []
    /// Sets the model runs on fetched payloads.
    var stamp: @Sendable ([Payload]) -> [Payload] = { $0 }

    static func choose(
        _ boxes: [GeoBox], now: Int64, runAwareness: CachedForecastProvider.RunAwareness?, freshness: ForecastFreshness, logger: Logger,
        lookup: ([GeoBox], Int64) async throws -> [GeoBox: Payload]
    ) async -> CacheSelection {
        var selection = CacheSelection()
        guard !boxes.isEmpty else { return selection }
        var dependencies: [GeoBox: [String]] = [:]
        var latest: [String: ModelRun] = [:]
        let freshSince: Int64
        if let runAwareness {
            for box in boxes { dependencies[box] = runAwareness.models.models(for: box) }
            let look = await runAwareness.board.look(at: Set(dependencies.values.joined()), now: now)
            latest = look.latest
            selection.runChecks = look.requests
            selection.latestRuns = look.latest.values.sorted { $0.model < $1.model }
            selection.newRuns = look.newRuns
            freshSince = runAwareness.freshness.freshSince(now: now)
        } else {
            freshSince = freshness.freshSince(now: now)
        }
        let cached: [GeoBox: Payload]
        do {
            cached = try await lookup(boxes, freshSince)
        } catch {
            logger.error("forecast cache unreadable, fetching everything", metadata: ["error": "\(error)"])
            cached = [:]
        }
        for box in boxes {
            let forecast = cached[box]
            let fresh: Bool
            if let runAwareness {
                let verdict = runAwareness.freshness.verdict(forPayload: forecast, dependsOn: dependencies[box] ?? [], latest: latest, now: now)
                if verdict == .currentByRun { selection.currentByRun += 1 }
                fresh = verdict.isFresh
            } else {
                fresh = forecast.map { freshness.isFresh(fetchedAt: $0.fetchedAt, now: now) } ?? false
            }
            if let forecast, fresh {
                selection.fresh[box] = forecast
            } else {
                selection.missing.append(box)
            }
        }
        if let runAwareness {
            let rule = runAwareness.freshness
            let known = latest
            let depending = dependencies
            selection.stamp = { forecasts in
                forecasts.map { forecast in
                    var stamped = forecast
                    if let box = forecast.box {
                        stamped.runs = rule.runs(includedAt: forecast.fetchedAt, models: depending[box] ?? [], latest: known)
                    }
                    return stamped
                }
            }
        }
        return selection
    }
}
