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
            FrostboxMetrics.Name.notifyRunDuration: Self.buckets(milliseconds: [
                1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000,
            ]),
        ]
        self.registry = registry
        self.factory = factory
    }

    /// Every metric in the Prometheus text exposition format.
    public func render() -> [UInt8] {
        Self.addingHelp(to: registry.emitToBuffer())
    }

    /// `text` with a `# HELP` line (from `FrostboxMetrics.help` and `PushTransportMetrics.help`) before each `# TYPE` line of a
    /// known metric. The metrics are made through swift-metrics, which has no help text.
    static func addingHelp(to text: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 4_096)
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let typePrefix = Array("# TYPE ".utf8)
            if line.starts(with: typePrefix) {
                let name = String(decoding: line.dropFirst(typePrefix.count).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                if let help = FrostboxMetrics.help[name] ?? PushTransportMetrics.help[name] {
                    output.append(contentsOf: "# HELP \(name) \(help)\n".utf8)
                }
            }
            output.append(contentsOf: line)
            output.append(UInt8(ascii: "\n"))
        }
        // split keeps the empty piece after the final newline; do not add a second one.
        if text.last == UInt8(ascii: "\n") || text.isEmpty { output.removeLast() }
        return output
    }

    static func buckets(milliseconds: [Double]) -> [Duration] {
        milliseconds.map { Duration.microseconds(Int64($0 * 1_000)) }
    }
}
