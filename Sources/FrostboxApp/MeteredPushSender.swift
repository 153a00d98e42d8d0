import FrostboxCore
import Metrics
import Synchronization

/// A `PushSender` decorator that measures every push: attempts by outcome and platform, latency (from the batch's hand-over), streams in
/// flight, and the periodic report's totals. The wrapped sender does the work; alerts by level
/// and class, and resends (from each outbox entry's attempts), are counted by the notifier,
/// which knows the entry.
public struct MeteredPushSender: PushSender {
    let base: any PushSender
    let report: OperationsReport
    let factory: any MetricsFactory
    let latency: Timer
    let transport: PushTransportGauges?

    /// `transport`: the senders' connections, streams in flight and pacers, recorded when a
    /// batch starts, every 256 outcomes and at its last; nil (the log-only sink, tests): none.
    public init(_ base: any PushSender, report: OperationsReport, metrics: any MetricsFactory, transport: PushTransportGauges? = nil) {
        self.base = base
        self.transport = transport
        self.report = report
        self.factory = metrics
        latency = Timer(label: FrostboxMetrics.Name.pushDuration, preferredDisplayUnit: .seconds, factory: metrics)
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        let start = ContinuousClock.now
        let report = self.report
        report.pushStarted(batch.count)
        let (latency, factory, transport) = (self.latency, self.factory, self.transport)
        transport.map { Self.record($0, factory: factory) }
        let platforms = batch.map(\.platform)
        let answered = Atomic<Int>(0)
        return base.send(batch).observed { index, outcome in
            let elapsed = ContinuousClock.now - start
            report.pushFinished(outcome, platform: platforms.indices.contains(index) ? platforms[index] : .ios, after: elapsed)
            latency.recordNanoseconds(elapsed.inNanoseconds)
            Counter(
                label: FrostboxMetrics.Name.pushes,
                dimensions: [
                    (FrostboxMetrics.Label.outcome, outcome.failureClass),
                    (FrostboxMetrics.Label.platform, platforms.indices.contains(index) ? platforms[index].rawValue : "unknown"),
                ],
                factory: factory
            )
            .increment()
            let count = answered.wrappingAdd(1, ordering: .relaxed).newValue
            if let transport, count == platforms.count || count.isMultiple(of: 256) { Self.record(transport, factory: factory) }
        }
    }

    /// The transport's gauges now.
    static func record(_ transport: PushTransportGauges, factory: any MetricsFactory) {
        for (platform, count) in transport.connections() {
            Gauge(label: PushTransportMetrics.connections, dimensions: [(FrostboxMetrics.Label.platform, platform)], factory: factory).record(count)
        }
        for (platform, count) in transport.streamsInFlight() {
            Gauge(label: PushTransportMetrics.streamsInFlight, dimensions: [(FrostboxMetrics.Label.platform, platform)], factory: factory).record(count)
        }
        for pacing in transport.pacing() {
            let budget = [("budget", pacing.budget)]
            Gauge(label: PushTransportMetrics.pacerMessagesPerMinute, dimensions: budget, factory: factory).record(pacing.messagesPerMinute)
            Gauge(label: PushTransportMetrics.pacerWaitedSeconds, dimensions: budget, factory: factory).record(pacing.waitedSeconds)
            Gauge(label: PushTransportMetrics.pacerPauses, dimensions: budget, factory: factory).record(pacing.pauses)
            Gauge(label: PushTransportMetrics.pacerPausedSeconds, dimensions: budget, factory: factory).record(pacing.pausedForSeconds)
        }
    }
}
