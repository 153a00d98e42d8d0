import FrostboxCore
import Metrics

/// A `PushSender` decorator that measures every push: attempts by outcome, alerts delivered
/// and failed by level, latency, streams in flight, and the periodic report's counters. The
/// wrapped sender does the work; this adds no behaviour of its own.
public struct MeteredPushSender: PushSender {
    let base: any PushSender
    let report: OperationsReport
    let factory: any MetricsFactory
    let latency: Timer
    let inFlight: Gauge

    public init(_ base: any PushSender, report: OperationsReport, metrics: any MetricsFactory) {
        self.base = base
        self.report = report
        self.factory = metrics
        latency = Timer(label: FrostboxMetrics.Name.pushDuration, preferredDisplayUnit: .seconds, factory: metrics)
        inFlight = Gauge(label: FrostboxMetrics.Name.pushStreamsInFlight, factory: metrics)
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        let start = ContinuousClock.now
        report.pushStarted()
        inFlight.record(report.snapshot().inFlight)
        let outcome = await base.send(notification)
        let elapsed = ContinuousClock.now - start
        report.pushFinished(outcome, after: elapsed)
        inFlight.record(report.snapshot().inFlight)
        latency.recordNanoseconds(OperationsReport.nanoseconds(elapsed))
        let level = notification.payload.frost?.level ?? "none"
        Counter(label: FrostboxMetrics.Name.pushes, dimensions: [(FrostboxMetrics.Label.outcome, outcome.failureClass)], factory: factory)
            .increment()
        if case .delivered = outcome {
            Counter(label: FrostboxMetrics.Name.alertsDelivered, dimensions: [(FrostboxMetrics.Label.level, level)], factory: factory)
                .increment()
        } else {
            Counter(
                label: FrostboxMetrics.Name.alertsFailed,
                dimensions: [(FrostboxMetrics.Label.level, level), (FrostboxMetrics.Label.failureClass, outcome.failureClass)],
                factory: factory
            ).increment()
        }
        return outcome
    }
}
