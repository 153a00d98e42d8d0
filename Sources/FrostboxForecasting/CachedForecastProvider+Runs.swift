import FrostboxCore

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
        var selection = Selection()
        guard !boxes.isEmpty else { return selection }
        var dependencies: [GeoBox: [String]] = [:]
        var latest: [String: ModelRun] = [:]
        let freshSince: Int64
        if let runAwareness {
            for box in boxes { dependencies[box] = runAwareness.models.models(for: box) }
            let look = await runAwareness.board.look(at: Set(dependencies.values.joined()), now: now)
            latest = look.latest
            batch.runChecks = look.requests
            batch.latestRuns = look.latest.values.sorted { $0.model < $1.model }
            batch.newRuns = look.newRuns
            freshSince = runAwareness.freshness.freshSince(now: now)
        } else {
            freshSince = freshness.freshSince(now: now)
        }
        let cached: [GeoBox: BoxForecast]
        do {
            cached = try await cache.forecasts(for: boxes, fetchedSince: freshSince)
        } catch {
            logger.error("forecast cache unreadable, fetching everything", metadata: ["error": "\(error)"])
            cached = [:]
        }
        for box in boxes {
            let forecast = cached[box]
            let fresh: Bool
            if let runAwareness {
                let verdict = runAwareness.freshness.verdict(for: forecast, dependsOn: dependencies[box] ?? [], latest: latest, now: now)
                if verdict == .currentByRun { batch.currentByRun += 1 }
                fresh = verdict.isFresh
            } else {
                fresh = forecast.map { freshness.isFresh(fetchedAt: $0.fetchedAt, now: now) } ?? false
            }
            if let forecast, fresh {
                batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .cache)
                selection.cached += 1
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
