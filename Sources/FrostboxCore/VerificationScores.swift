import Foundation

/// A weighted estimate with its 95 % interval (issue #48): exact when every night behind it
/// was checked, wider the fewer were sampled.
public struct Estimate: Sendable, Hashable {
    public var value: Double
    public var low: Double
    public var high: Double

    public init(value: Double, low: Double, high: Double) {
        self.value = value
        self.low = low
        self.high = high
    }

    public static func exact(_ value: Double) -> Estimate { Estimate(value: value, low: value, high: value) }
}

/// A yes/no forecast of one level against what happened: hits, misses, false alarms and
/// correct negatives (weighted: each stands for the box-nights its sample stands for), and
/// the scores forecasters use.
public struct LevelScores: Sendable, Hashable {
    public var level: FrostLevel
    public var hits: Estimate
    public var misses: Estimate
    public var falseAlarms: Estimate
    public var correctNegatives: Estimate
    /// Probability of detection `H / (H + M)`: the share of frosts alerted (1 is perfect).
    public var pod: Estimate?
    /// False alarm ratio `F / (H + F)`: the share of alerts with no frost (0 is perfect).
    public var far: Estimate?
    /// Critical success index `H / (H + M + F)`: hits among all nights either said or had frost (1 is perfect).
    public var csi: Estimate?
    /// Frequency bias `(H + F) / (H + M)`: alerts per frost (1 is unbiased, above 1 over-warns).
    public var bias: Estimate?
    /// Brier score `mean((p − o)²)` over nights with a chance (0 is perfect; always saying 50 % scores 0.25).
    public var brier: Double?
    /// Nights the Brier score and reliability are over.
    public var probabilityNights: Int
    /// Forecast chance in tenths against how often the level happened.
    public var reliability: [ReliabilityBin]
}

/// One bin of a reliability diagram: nights whose chance fell in `lower..<upper`.
public struct ReliabilityBin: Sendable, Hashable {
    public var lower: Double
    public var upper: Double
    /// Nights in the bin (unweighted) and what they stand for.
    public var nights: Int
    public var weight: Double
    /// Weighted mean forecast chance, and the share of those nights the level happened.
    public var meanProbability: Double
    public var observedFrequency: Double
}

/// The scores of a set of checked nights.
public struct VerificationScores: Sendable, Hashable {
    /// Nights checked, and how many box-nights they stand for.
    public var nights: Int
    public var weight: Double
    /// One per frost level.
    public var levels: [LevelScores]
    /// Mean of forecast minus observed night low, °C (positive: the forecast was too warm),
    /// over nights with a kept forecast minimum.
    public var meanErrorC: Double?
    public var errorNights: Int

    /// z of a two-sided 95 % interval.
    static let z = 1.959964

    /// Scores `nights` against `thresholds`.
    public init(_ nights: [VerifiedNight], thresholds: FrostThresholds) {
        self.nights = nights.count
        weight = nights.reduce(0) { $0 + $1.weight }
        levels = FrostLevel.allCases.filter { $0 != .none }.map { Self.scores(of: $0, nights, thresholds: thresholds) }
        let errors = nights.compactMap { night in night.forecastMinimumC.map { (night.weight, $0 - night.observedMinimumC) } }
        errorNights = errors.count
        let errorWeight = errors.reduce(0) { $0 + $1.0 }
        meanErrorC = errorWeight > 0 ? errors.reduce(0) { $0 + $1.0 * $1.1 } / errorWeight : nil
    }

    static func scores(of level: FrostLevel, _ nights: [VerifiedNight], thresholds: FrostThresholds) -> LevelScores {
        let hits = estimate(nights) { $0.forecast(level) && $0.observed(level, thresholds: thresholds) }
        let misses = estimate(nights) { !$0.forecast(level) && $0.observed(level, thresholds: thresholds) }
        let falseAlarms = estimate(nights) { $0.forecast(level) && !$0.observed(level, thresholds: thresholds) }
        let negatives = estimate(nights) { !$0.forecast(level) && !$0.observed(level, thresholds: thresholds) }
        let cells = [hits, misses, falseAlarms]
        let pod = ratio(cells) { c in (c[0], c[0] + c[1]) }
        let far = ratio(cells) { c in (c[2], c[0] + c[2]) }
        let csi = ratio(cells) { c in (c[0], c[0] + c[1] + c[2]) }
        let bias = ratio(cells) { c in (c[0] + c[2], c[0] + c[1]) }
        let chances = nights.compactMap { night in
            night.probabilities[level].map { (night.weight, $0, night.observed(level, thresholds: thresholds) ? 1.0 : 0.0) }
        }
        let chanceWeight = chances.reduce(0) { $0 + $1.0 }
        let brier = chanceWeight > 0 ? chances.reduce(0) { $0 + $1.0 * ($1.1 - $1.2) * ($1.1 - $1.2) } / chanceWeight : nil
        return LevelScores(
            level: level, hits: hits, misses: misses, falseAlarms: falseAlarms, correctNegatives: negatives, pod: pod, far: far, csi: csi,
            bias: bias, brier: brier, probabilityNights: chances.count, reliability: reliability(chances))
    }

    /// The weighted count of nights where `holds`, with its 95 % interval under stratified
    /// sampling: `Var = Σ_s N_s² (1 − n_s / N_s) S_s² / n_s` (N_s the nights a stratum stands
    /// for, n_s those checked, S_s² the sample variance of the indicator). A census stratum
    /// (every night checked) adds nothing; a stratum of one sampled night widens the interval
    /// to everything its undrawn nights could be.
    static func estimate(_ nights: [VerifiedNight], where holds: (VerifiedNight) -> Bool) -> Estimate {
        struct Stratum {
            var n = 0
            var population = 0.0
            var yes = 0
        }
        var strata: [String: Stratum] = [:]
        var total = 0.0
        var observed = 0
        for night in nights {
            let yes = holds(night)
            strata[night.stratum, default: Stratum()].n += 1
            strata[night.stratum, default: Stratum()].population += night.weight
            if yes {
                strata[night.stratum, default: Stratum()].yes += 1
                total += night.weight
                observed += 1
            }
        }
        var variance = 0.0
        // A stratum of one sampled night standing for more has no variance to estimate: its
        // nights not drawn may be all yes or all no, and the interval says so.
        var below = 0.0
        var above = 0.0
        for stratum in strata.values where stratum.population > Double(stratum.n) + 1e-9 {
            let n = Double(stratum.n)
            guard stratum.n > 1 else {
                let estimate = stratum.population * Double(stratum.yes)
                below += estimate - Double(stratum.yes)
                above += stratum.population - n + Double(stratum.yes) - estimate
                continue
            }
            let share = Double(stratum.yes) / n
            let sampleVariance = share * (1 - share) * n / (n - 1)
            variance += stratum.population * stratum.population * (1 - n / stratum.population) * sampleVariance / n
        }
        let margin = z * variance.squareRoot()
        let ceiling = nights.reduce(0) { $0 + $1.weight } - Double(nights.count) + Double(observed)
        return Estimate(value: total, low: max(Double(observed), total - margin - below), high: min(ceiling, total + margin + above))
    }

    /// A score that is a ratio of sums of the cells, with its interval from the cells'
    /// intervals: a ratio of such sums is monotone in each cell, so its extremes lie at the
    /// corners of the cells' box. Nil when the denominator is 0.
    static func ratio(_ cells: [Estimate], _ form: ([Double]) -> (Double, Double)) -> Estimate? {
        let (top, bottom) = form(cells.map(\.value))
        guard bottom > 0 else { return nil }
        var low = Double.infinity
        var high = -Double.infinity
        for corner in 0..<(1 << cells.count) {
            let values = cells.indices.map { corner & (1 << $0) == 0 ? cells[$0].low : cells[$0].high }
            let (t, b) = form(values)
            guard b > 0 else { continue }
            low = min(low, t / b)
            high = max(high, t / b)
        }
        return Estimate(value: top / bottom, low: low.isFinite ? low : top / bottom, high: high.isFinite ? high : top / bottom)
    }

    /// Ten bins of forecast chance (the last closed at 1).
    static func reliability(_ chances: [(weight: Double, probability: Double, outcome: Double)]) -> [ReliabilityBin] {
        (0..<10).compactMap { index in
            let lower = Double(index) / 10
            let upper = Double(index + 1) / 10
            let inBin = chances.filter { $0.probability >= lower && ($0.probability < upper || (index == 9 && $0.probability <= 1)) }
            let weight = inBin.reduce(0) { $0 + $1.weight }
            guard weight > 0 else { return nil }
            return ReliabilityBin(
                lower: lower, upper: upper, nights: inBin.count, weight: weight,
                meanProbability: inBin.reduce(0) { $0 + $1.weight * $1.probability } / weight,
                observedFrequency: inBin.reduce(0) { $0 + $1.weight * $1.outcome } / weight)
        }
    }
}
