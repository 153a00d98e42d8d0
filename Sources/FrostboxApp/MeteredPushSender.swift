import FrostboxCore
import Metrics

/// A `PushSender` decorator that measures every push: attempts by outcome and platform, latency (from the batch's hand-over), streams in
/// flight, and the periodic report's totals. The wrapped sender does the work; alerts by level
/// and class, and resends (from each outbox entry's attempts), are counted by the notifier,
/// which knows the entry.
public struct MeteredPushSender: PushSender {
    let base: any PushSender
    let report: OperationsReport
    let factory: any MetricsFactory
    let latency: Timer
    let inFlight: Gauge
    let connections: Gauge
    let openConnections: @Sendable () -> Int
    let streamsInFlight: @Sendable () -> Int

    /// `openConnections`: the sender's open APNs connections, recorded after each push.
    /// `streamsInFlight`: its HTTP/2 streams awaiting an answer, recorded before and after each
    /// push; without it, the pushes handed to the sender and not yet answered.
    public init(
        _ base: any PushSender, report: OperationsReport, metrics: any MetricsFactory,
        openConnections: @escaping @Sendable () -> Int = { 0 }, streamsInFlight: (@Sendable () -> Int)? = nil
    ) {
        self.base = base
        self.openConnections = openConnections
        self.streamsInFlight = streamsInFlight ?? { report.snapshot().inFlight }
        connections = Gauge(label: PushTransportMetrics.connections, factory: metrics)
        self.report = report
        self.factory = metrics
        latency = Timer(label: FrostboxMetrics.Name.pushDuration, preferredDisplayUnit: .seconds, factory: metrics)
        inFlight = Gauge(label: PushTransportMetrics.streamsInFlight, factory: metrics)
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        let start = ContinuousClock.now
        let report = self.report
        report.pushStarted(batch.count)
        inFlight.record(streamsInFlight())
        let (inFlight, connections, latency, factory) = (self.inFlight, self.connections, self.latency, self.factory)
        let (streamsInFlight, openConnections) = (self.streamsInFlight, self.openConnections)
        let platforms = batch.map(\.platform)
        return base.send(batch).observed { index, outcome in
            let elapsed = ContinuousClock.now - start
            report.pushFinished(outcome, platform: platforms.indices.contains(index) ? platforms[index] : .ios, after: elapsed)
            inFlight.record(streamsInFlight())
            connections.record(openConnections())
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
        }
    }
}
