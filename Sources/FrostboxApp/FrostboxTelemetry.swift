import CoreMetrics
import FrostboxCore
import Metrics
import Prometheus

/// The process's metrics: one Prometheus registry and the swift-metrics factory that writes
/// into it, passed explicitly to every emitter (no global bootstrap needed, so tests can hold
/// registries of their own).
public struct FrostboxTelemetry: Sendable {
    /// The registry `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    /// The factory emitters create their counters, gauges and timers with.
    public let factory: any MetricsFactory

    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            FrostboxMetrics.Name.httpRequestDuration: Self.buckets(milliseconds: [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000]),
            FrostboxMetrics.Name.pushDuration: Self.buckets(milliseconds: [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000]),
            FrostboxMetrics.Name.notifyRunDuration: Self.buckets(milliseconds: [1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000]),
        ]
        self.registry = registry
        self.factory = factory
    }

    /// Every metric in the Prometheus text exposition format.
    public func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    static func buckets(milliseconds: [Double]) -> [Duration] {
        milliseconds.map { Duration.microseconds(Int64($0 * 1_000)) }
    }
}
