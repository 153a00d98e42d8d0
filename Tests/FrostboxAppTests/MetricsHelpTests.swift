import FrostboxCore
import Testing

@testable import FrostboxApp

/// `/metrics` explains every Frostbox metric with a `# HELP` line.
@Suite("Metrics help lines")
struct MetricsHelpTests {
    @Test("each Frostbox metric's TYPE line follows its HELP line; the samples are unchanged")
    func helpBeforeType() {
        let telemetry = FrostboxTelemetry()
        let names = [FrostboxMetrics.Name.notifyRuns, FrostboxMetrics.Name.alertsPlanned, FrostboxMetrics.Name.tokensPruned]
        for name in names {
            telemetry.factory.makeCounter(label: name, dimensions: [("result", "degraded")]).increment(by: 2)
        }
        telemetry.factory.makeCounter(label: "other_total", dimensions: []).increment(by: 1)
        let raw = String(decoding: telemetry.registry.emitToBuffer(), as: UTF8.self)
        let text = String(decoding: telemetry.render(), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        for name in names {
            let type = lines.firstIndex { $0.hasPrefix("# TYPE \(name) ") }
            #expect(type != nil, "\(name) is not rendered")
            #expect(type.map { $0 > 0 && lines[$0 - 1] == "# HELP \(name) \(FrostboxMetrics.help[name] ?? "")" } == true, "\(name)")
        }
        #expect(!text.contains("# HELP other_total"))
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("# HELP") } == raw.split(separator: "\n"))
        #expect(text.hasSuffix("\n") == raw.hasSuffix("\n"))
        #expect(FrostboxMetrics.help[FrostboxMetrics.Name.notifyRuns]?.contains("degraded") == true)
    }
}
