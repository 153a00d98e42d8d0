import FrostboxCore
import Metrics

/// A `ForecastProvider` decorator that counts what each batch cost and how it went: requests,
/// quota weight, boxes by source, failures by reason, and (when the provider can tell) the
/// quota left in each budget window.
public struct MeteredForecastProvider: ForecastProvider {
    let base: any ForecastProvider
    let factory: any MetricsFactory
    /// Current quota use, when the wrapped provider keeps it.
    let quota: (@Sendable (Int64) async -> QuotaUsage?)?
    let requests: Counter
    let weight: FloatingPointCounter
    let currentByRun: Counter
    let runChecks: Counter

    public init(_ base: any ForecastProvider, metrics: any MetricsFactory, quota: (@Sendable (Int64) async -> QuotaUsage?)? = nil) {
        self.base = base
        self.factory = metrics
        self.quota = quota
        requests = Counter(label: FrostboxMetrics.Name.forecastRequests, factory: metrics)
        weight = FloatingPointCounter(label: FrostboxMetrics.Name.forecastWeight, factory: metrics)
        currentByRun = Counter(label: FrostboxMetrics.Name.forecastCurrentByRun, factory: metrics)
        runChecks = Counter(label: FrostboxMetrics.Name.forecastRunChecks, factory: metrics)
    }

    public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        let batch = await base.forecasts(for: boxes, now: now)
        requests.increment(by: batch.requestsMade)
        if batch.weightUsed > 0 { weight.increment(by: batch.weightUsed) }
        currentByRun.increment(by: batch.currentByRun)
        runChecks.increment(by: batch.runChecks)
        for run in batch.newRuns {
            Counter(label: FrostboxMetrics.Name.forecastModelRuns, dimensions: [(FrostboxMetrics.Label.model, run.model)], factory: factory).increment()
        }
        var sources: [ForecastSource: Int] = [:]
        for forecast in batch.forecasts.values { sources[forecast.source, default: 0] += 1 }
        for (source, count) in sources {
            Counter(label: FrostboxMetrics.Name.forecastBoxes, dimensions: [(FrostboxMetrics.Label.source, source.rawValue)], factory: factory)
                .increment(by: count)
        }
        var reasons: [String: Int] = [:]
        for failure in batch.failures.values { reasons[Self.reason(failure), default: 0] += 1 }
        for (reason, count) in reasons {
            Counter(label: FrostboxMetrics.Name.forecastFailures, dimensions: [(FrostboxMetrics.Label.reason, reason)], factory: factory)
                .increment(by: count)
        }
        if let quota, let usage = await quota(now) {
            for (window, left) in [
                ("minute", usage.budgets.perMinute - usage.lastMinute), ("hour", usage.budgets.perHour - usage.lastHour),
                ("day", usage.budgets.perDay - usage.lastDay),
            ] {
                Gauge(label: FrostboxMetrics.Name.forecastQuotaLeft, dimensions: [(FrostboxMetrics.Label.window, window)], factory: factory)
                    .record(max(0, left))
            }
        }
        return batch
    }

    /// A bounded label value per failure kind (never the free-text reason).
    static func reason(_ failure: ForecastFailure) -> String {
        switch failure {
        case .budgetExhausted: "budget_exhausted"
        case .rateLimited: "rate_limited"
        case .remote: "remote_error"
        case .invalidResponse: "invalid_response"
        case .timeout: "timeout"
        case .transport: "transport"
        }
    }
}
