import Foundation
import FrostboxCore
import FrostboxHTTP
import Logging

/// `frostbox verify` (issue #48): the scores of the nights checked against what happened,
/// read from the database as `GET /admin/verification` answers them.
public enum VerificationCommands {
    /// The checked nights' scores since `since` (nil: every night kept).
    public static func overview(config: FrostboxSettings, since: LocalDate?, logger: Logger) async throws -> VerificationOverview {
        let database = try await DeviceDatabase.open(config, logger: logger)
        let (store, _, _) = database.notifier(leaseSeconds: config.notifier.leaseSeconds)
        guard let nights = store as? any NightCheckStore else { throw VerifyCommandError.noNights }
        let thresholds = config.rule.thresholds
        return try await database.withRunning {
            try await VerificationOverview.load(from: nights, since: since, thresholds: thresholds)
        }
    }

    /// The overview as the JSON of `GET /admin/verification`, keys sorted.
    public static func json(_ overview: VerificationOverview) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(VerificationBody(overview)), as: UTF8.self)
    }

    /// A table per level of the overall scores, then one line per group for the freeze level.
    public static func text(_ overview: VerificationOverview) -> String {
        let p = overview.progress
        var lines = [
            "nights checked: \(p.observed) (standing for \(number(overview.report.overall.weight, 0)) box-nights); waiting for the archive: "
                + "\(p.chosen); not drawn: \(p.skipped); not yet due: \(p.pending); unavailable: \(p.unavailable)"
        ]
        if let error = overview.report.overall.meanErrorC {
            lines.append("mean forecast error of the night low: \(number(error, 2)) °C (positive: forecasts too warm)")
        }
        lines.append("")
        let headers = ["LEVEL", "HITS", "MISSES", "FALSE ALARMS", "CORRECT NEG.", "POD", "FAR", "CSI", "BIAS", "BRIER"]
        let rows = overview.report.overall.levels.map { level -> [String] in
            [
                level.level.description, count(level.hits), count(level.misses), count(level.falseAlarms), count(level.correctNegatives),
                ratio(level.pod), ratio(level.far), ratio(level.csi), ratio(level.bias), level.brier.map { number($0, 3) } ?? "-",
            ]
        }
        lines += TextTable.lines(headers, rows)
        for (title, groups) in [
            ("country", overview.report.countries), ("region", overview.report.regions), ("lead", overview.report.leads),
            ("month", overview.report.months),
        ] where !groups.isEmpty {
            lines.append("")
            lines.append("freeze by \(title):")
            let rows = groups.map { group -> [String] in
                let freeze = group.scores.levels.first { $0.level == .freeze }
                return [
                    group.key, "\(group.scores.nights)", freeze.map { count($0.hits) } ?? "-", freeze.map { count($0.misses) } ?? "-",
                    freeze.map { count($0.falseAlarms) } ?? "-", ratio(freeze?.pod), ratio(freeze?.far), ratio(freeze?.csi),
                    group.scores.meanErrorC.map { number($0, 2) } ?? "-",
                ]
            }
            lines += TextTable.lines([title.uppercased(), "NIGHTS", "HITS", "MISSES", "FALSE ALARMS", "POD", "FAR", "CSI", "MEAN ERROR °C"], rows)
        }
        return lines.joined(separator: "\n")
    }

    /// A weighted count, with its 95 % interval when sampled.
    static func count(_ estimate: Estimate) -> String {
        estimate.low == estimate.high ? number(estimate.value, 0) : "\(number(estimate.value, 0)) (\(number(estimate.low, 0))–\(number(estimate.high, 0)))"
    }

    static func ratio(_ estimate: Estimate?) -> String {
        guard let estimate else { return "-" }
        let value = number(estimate.value, 2)
        return estimate.high - estimate.low < 0.005 ? value : "\(value) (\(number(estimate.low, 2))–\(number(estimate.high, 2)))"
    }

    static func number(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}

/// Why `frostbox verify` could not score.
public enum VerifyCommandError: Error, CustomStringConvertible {
    case noNights

    public var description: String { "this database keeps no nights to score" }
}
