import Foundation
import FrostboxApp
import FrostboxCore

/// How `frostbox forecast` prints its report.
extension ForecastReport {
    /// The report as lines of text: box, source, per-night levels with first hour, minimum and its hour.
    var lines: [String] {
        var lines = ["box \(box) (centre \(box.latitude), \(box.longitude))"]
        switch result {
        case .failure(let failure):
            lines.append("forecast unavailable: \(Self.describe(failure))")
            if let hint { lines.append("hint: \(hint)") }
        case .success(let sourced):
            let forecast = sourced.forecast
            let fetched = Date(timeIntervalSince1970: TimeInterval(forecast.fetchedAt))
            lines.append("source \(sourced.source.rawValue) (fetched \(fetched), \(forecast.hours.count) hours, zone \(forecast.timezone))")
            lines.append(Self.runs(forecast.runs))
            lines.append("grid cell \(forecast.gridLatitude), \(forecast.gridLongitude), elevation \(forecast.elevation.map { "\($0) m" } ?? "unknown")")
            let verdict = rule.evaluate(forecast.hours)
            lines.append("verdict (\(rule.name) rule): \(Self.summary(verdict.level, verdict.firstAtLevel, verdict.coldest))")
            for night in verdict.nights {
                let cut = night.isComplete ? "" : " (partial: the forecast covers only part of this night)"
                lines.append("  night of \(night.night): \(Self.summary(night.level, night.firstAtLevel, night.coldest))\(cut)")
            }
        }
        if let ensemble { lines += Self.lines(ensemble, rule: rule) }
        lines.append("requests \(requestsMade), weight \(weightUsed)")
        if let usage {
            lines.append(
                "quota used: \(usage.lastMinute)/\(usage.budgets.perMinute) last minute, \(usage.lastHour)/\(usage.budgets.perHour) last hour, \(usage.lastDay)/\(usage.budgets.perDay) last day"
            )
        }
        if let pause {
            lines.append("paused by the server until \(Date(timeIntervalSince1970: TimeInterval(pause.until))): \(pause.reason)")
        }
        return lines
    }

    /// The chance of frost per night: the ensemble's source, model, run and weight, each
    /// level's probability, and the members' night lows as a histogram (or the mean and spread).
    static func lines(_ report: EnsembleReport, rule: FrostRule) -> [String] {
        switch report.result {
        case .failure(let failure):
            return ["chance of frost (\(report.source.rawValue)) unavailable: \(describe(failure)); alerts fall back to the verdict above"]
        case .success(let ensemble):
            let members = ensemble.memberCount > 0 ? ", \(ensemble.memberCount) members" : ", mean and spread"
            var lines = [
                "chance of frost (\(report.source.rawValue): \(ensemble.model)\(members), weight \(report.weightPerBox) a box, "
                    + "\(report.origin?.rawValue ?? "cache"))",
                "  " + runs(ensemble.runs),
            ]
            let levels: [FrostLevel] = [.frostRisk, .freeze, .hardFreeze]
            for night in rule.probabilities(of: ensemble) {
                let chances = levels.map { level in
                    "\(level) \(Int((night.probability(of: level) * 100).rounded())) % (≤ \(rule.thresholds.threshold(of: level) ?? 0) °C)"
                }
                lines.append("  night of \(night.night): " + chances.joined(separator: ", "))
                if let normal = night.meanAndSpread {
                    lines.append("    likeliest hour: mean \(normal.mean) °C, spread \(normal.spread) °C")
                } else if !night.memberMinima.isEmpty {
                    lines += histogram(night.memberMinima).map { "    " + $0 }
                }
            }
            return lines
        }
    }

    /// Members' night lows in 1 °C bins, one `#` a member: `-1 … 0 °C  ######  6`.
    static func histogram(_ minima: [Double]) -> [String] {
        guard let low = minima.min(), let high = minima.max() else { return [] }
        let first = Int(low.rounded(.down)), last = Int(high.rounded(.down))
        return (first...last).map { bin in
            let count = minima.count { Int($0.rounded(.down)) == bin }
            let label = "\(bin) … \(bin + 1) °C".padding(toLength: 12, withPad: " ", startingAt: 0)
            return "\(label) \(String(repeating: "#", count: count)) \(count)"
        }
    }

    /// Which model runs the forecast came from, e.g. `runs icon_d2 2026-11-21T09:00:00Z (available 2026-11-21T10:32:10Z)`.
    static func runs(_ runs: [ModelRun]) -> String {
        guard !runs.isEmpty else { return "runs not known (fetched by the time-based TTL, or before the run-aware cache)" }
        func time(_ epoch: Int64) -> String { Date(timeIntervalSince1970: TimeInterval(epoch)).formatted(.iso8601) }
        return "runs "
            + runs.map { "\($0.model) \(time($0.initialisedAt)) (available \(time($0.availableAt)))" }.joined(separator: ", ")
    }

    static func summary(_ level: FrostLevel, _ first: ForecastHour?, _ coldest: ForecastHour?) -> String {
        var text = "\(level)"
        if let first, level > .none { text += " from \(first.local)" }
        if let coldest, let minimum = coldest.temperatureC { text += ", min \(minimum) °C at \(coldest.local)" }
        return text
    }

    static func describe(_ failure: ForecastFailure) -> String {
        switch failure {
        case .budgetExhausted(let retryAfter):
            "quota budget exhausted\(retryAfter.map { ", retry after \(Date(timeIntervalSince1970: TimeInterval($0)))" } ?? "")"
        case .rateLimited(let reason, let retryAfter):
            "rate limited: \(reason)\(retryAfter.map { " (retry after \(Date(timeIntervalSince1970: TimeInterval($0))))" } ?? "")"
        case .remote(let status, let reason): "Open-Meteo answered \(status): \(reason)"
        case .invalidResponse(let why): "unusable answer: \(why)"
        case .timeout: "The forecast server did not answer within the deadline (forecast.timeout)."
        case .transport(let why): why
        }
    }
}
