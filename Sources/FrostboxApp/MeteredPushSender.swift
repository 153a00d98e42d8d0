import FrostboxCore
import Metrics
import Synchronization

/// A `PushSender` decorator that measures every push: attempts by outcome, latency, streams in
/// flight, resends (an `apns-id` seen before: the notifier resends with the original id), and
/// the periodic report's totals. The wrapped sender does the work; alerts by level and class
/// are counted by the notifier, which knows the outbox entry.
public struct MeteredPushSender: PushSender {
    let base: any PushSender
    let report: OperationsReport
    let factory: any MetricsFactory
    let latency: Timer
    let inFlight: Gauge
    let connections: Gauge
    let openConnections: @Sendable () -> Int
    let resends: Counter
    let recent: RecentIDs

    /// `openConnections`: the sender's open APNs connections, recorded after each push.
    public init(
        _ base: any PushSender, report: OperationsReport, metrics: any MetricsFactory,
        openConnections: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.base = base
        self.openConnections = openConnections
        connections = Gauge(label: FrostboxMetrics.Name.apnsConnections, factory: metrics)
        self.report = report
        self.factory = metrics
        latency = Timer(label: FrostboxMetrics.Name.pushDuration, preferredDisplayUnit: .seconds, factory: metrics)
        inFlight = Gauge(label: FrostboxMetrics.Name.pushStreamsInFlight, factory: metrics)
        resends = Counter(label: FrostboxMetrics.Name.pushResends, factory: metrics)
        recent = RecentIDs(capacity: 100_000)
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        if !recent.insert(notification.apnsID) {
            resends.increment()
            report.resent()
        }
        let start = ContinuousClock.now
        report.pushStarted()
        inFlight.record(report.snapshot().inFlight)
        let outcome = await base.send(notification)
        let elapsed = ContinuousClock.now - start
        report.pushFinished(outcome, after: elapsed)
        inFlight.record(report.snapshot().inFlight)
        connections.record(openConnections())
        latency.recordNanoseconds(elapsed.inNanoseconds)
        Counter(label: FrostboxMetrics.Name.pushes, dimensions: [(FrostboxMetrics.Label.outcome, outcome.failureClass)], factory: factory)
            .increment()
        return outcome
    }

    /// The latest `capacity` ids, oldest forgotten first (bounded memory).
    final class RecentIDs: Sendable {
        private struct State {
            var members: Set<String> = []
            var order: [String] = []
            var head = 0
        }
        private let state = Mutex(State())
        let capacity: Int

        init(capacity: Int) { self.capacity = capacity }

        /// Adds `id`; false when it was already there.
        func insert(_ id: String) -> Bool {
            state.withLock { state in
                guard state.members.insert(id).inserted else { return false }
                if state.order.count < capacity {
                    state.order.append(id)
                } else {
                    state.members.remove(state.order[state.head])
                    state.order[state.head] = id
                    state.head = (state.head + 1) % capacity
                }
                return true
            }
        }
    }
}
