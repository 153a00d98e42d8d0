import FrostboxCore
import Synchronization

/// A `ForecastProvider` answering from a script: a forecast or a failure per box, an optional
/// budget of boxes it may fetch in all (boxes past it come back `.budgetExhausted`), and a
/// batch size for counting requests. Asking for a box with no script stops the test
/// (precondition failure): the caller asked for something nobody expected.
public final class ScriptedForecastProvider: ForecastProvider {
    struct State: Sendable {
        var forecasts: [GeoBox: BoxForecast] = [:]
        var failures: [GeoBox: ForecastFailure] = [:]
        var cached: Set<GeoBox> = []
        var remainingBudget: Int?
        var calls: [[GeoBox]] = []
    }

    private let state = Mutex(State())
    /// Boxes per request, for `requestsMade`.
    public let batchSize: Int

    public init(batchSize: Int = 100, budget: Int? = nil) {
        self.batchSize = batchSize
        state.withLock { $0.remainingBudget = budget }
    }

    /// Answers `box` with `forecast` (as if fetched; `cached: true` as if from the cache).
    public func set(_ forecast: BoxForecast, cached: Bool = false) {
        guard let box = forecast.box else { preconditionFailure("ScriptedForecastProvider: forecast without a valid box") }
        state.withLock { state in
            state.forecasts[box] = forecast
            state.failures[box] = nil
            if cached { state.cached.insert(box) } else { state.cached.remove(box) }
        }
    }

    /// Answers `box` with `failure`.
    public func fail(_ box: GeoBox, with failure: ForecastFailure) {
        state.withLock { state in
            state.failures[box] = failure
            state.forecasts[box] = nil
        }
    }

    /// Sets how many more boxes may be fetched (nil: no limit).
    public func setBudget(_ boxes: Int?) { state.withLock { $0.remainingBudget = boxes } }

    /// The boxes of every call, in order.
    public var calls: [[GeoBox]] { state.withLock { $0.calls } }

    public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        state.withLock { state in
            state.calls.append(boxes)
            var batch = ForecastBatch()
            var fetched = 0
            for box in boxes {
                if let failure = state.failures[box] {
                    batch.failures[box] = failure
                    continue
                }
                guard let forecast = state.forecasts[box] else {
                    preconditionFailure("ScriptedForecastProvider: asked for \(box), which no test scripted")
                }
                if state.cached.contains(box) {
                    batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .cache)
                    continue
                }
                if let remaining = state.remainingBudget {
                    guard remaining > 0 else {
                        batch.failures[box] = .budgetExhausted(retryAfter: now + 3600)
                        continue
                    }
                    state.remainingBudget = remaining - 1
                }
                batch.forecasts[box] = SourcedForecast(forecast: forecast, source: .fetched)
                fetched += 1
            }
            batch.requestsMade = (fetched + batchSize - 1) / batchSize
            batch.weightUsed = Double(fetched)
            return batch
        }
    }
}
