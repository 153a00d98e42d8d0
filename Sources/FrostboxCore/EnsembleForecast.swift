import Foundation

/// One box's ensemble forecast of 2 m temperature (issue #47): the same model run many times
/// from perturbed starts (`members`, control included), or an ensemble-mean model's hourly
/// mean and spread (the members' standard deviation) at about one member's cost.
public struct EnsembleForecast: BoxPayload, Hashable, Codable {
    /// What the ensemble gives for each hour.
    public enum Values: Sendable, Hashable, Codable {
        /// Each member's hourly temperatures (°C), aligned with `hours`; nil where missing.
        case members([[Double?]])
        /// The hourly mean and spread (°C), aligned with `hours`.
        case spread(mean: [Double?], spread: [Double?])
    }

    /// The box's compact key (`GeoBox.key`), nil for an ensemble not tied to a box.
    public var boxKey: Int64?
    /// The hours, UTC and on the box's wall clock (temperatures are in `values`).
    public var hours: [ForecastHour]
    public var values: Values
    /// The ensemble model an ensemble is named by (`icon_seamless`, `ecmwf_ifs025`, …; the
    /// first asked for when several were pooled).
    public var model: String
    /// When it was fetched, UTC epoch seconds.
    public var fetchedAt: Int64
    /// The model runs it came from (empty when they were not known).
    public var runs: [ModelRun]

    public init(
        box: GeoBox? = nil, hours: [ForecastHour], values: Values, model: String, fetchedAt: Int64 = 0, runs: [ModelRun] = []
    ) {
        self.boxKey = box?.key
        self.hours = hours
        self.values = values
        self.model = model
        self.fetchedAt = fetchedAt
        self.runs = runs
    }

    public var box: GeoBox? { boxKey.flatMap(GeoBox.init(key:)) }

    /// Members whose temperatures are given (0 for a mean-and-spread ensemble).
    public var memberCount: Int {
        if case .members(let members) = values { return members.count }
        return 0
    }
}

/// The mean and spread (°C) of an ensemble at one hour.
public struct MeanAndSpread: Sendable, Hashable {
    public var mean: Double
    public var spread: Double

    public init(mean: Double, spread: Double) {
        self.mean = mean
        self.spread = spread
    }

    /// `P(X ≤ threshold)` for X normal with this mean and standard deviation.
    public func probability(atOrBelow threshold: Double) -> Double {
        FrostRule.normalProbability(atOrBelow: threshold, mean: mean, spread: spread)
    }
}

/// The chance of frost on one night: for each level, `P(minimum ≤ the level's threshold)`
/// over the rule's night window.
public struct NightProbability: Sendable, Hashable {
    public var night: LocalDate
    /// Probability (0…1) of each of `frostRisk`, `freeze`, `hardFreeze` by its temperature
    /// threshold alone (cloud and wind are not in the ensemble).
    public var byLevel: [FrostLevel: Double]
    /// Members that had a temperature in the window (nil for mean-and-spread).
    public var members: Int?
    /// Each member's night minimum (°C), for a histogram; empty for mean-and-spread.
    public var memberMinima: [Double]
    /// The mean and spread at the hour most likely to freeze (mean-and-spread only).
    public var meanAndSpread: MeanAndSpread?

    public init(
        night: LocalDate, byLevel: [FrostLevel: Double], members: Int? = nil, memberMinima: [Double] = [], meanAndSpread: MeanAndSpread? = nil
    ) {
        self.night = night
        self.byLevel = byLevel
        self.members = members
        self.memberMinima = memberMinima
        self.meanAndSpread = meanAndSpread
    }

    /// The probability of `level` (0 for `none`'s absence of frost, 1 by definition).
    public func probability(of level: FrostLevel) -> Double {
        level == .none ? 1 : byLevel[level] ?? 0
    }

    /// The highest level whose probability reaches `minimum` (`none` when no level does).
    public func level(reaching minimum: Double) -> FrostLevel {
        FrostLevel.allCases.reversed().first { $0 != .none && probability(of: $0) >= minimum } ?? .none
    }
}

extension FrostRule {
    /// The chance of frost on each night the ensemble covers, grouped into nights exactly as
    /// `evaluate` groups hours (local wall clock, DST nights of 15 or 17 hours).
    ///
    /// Members: the share of members (control included) whose minimum over the night's hours
    /// is at or below each threshold — a member exactly at the threshold counts; a member
    /// without any temperature in the window is left out (not counted as warm); a night no
    /// member covers is left out.
    ///
    /// Mean and spread: minima of neighbouring hours are nearly perfectly correlated, so the
    /// night's probability is that of its likeliest hour, `max over hours of Φ((t − μ) / σ)`
    /// under a normal assumption; a spread of 0 is a certain forecast (1 at or below, else 0).
    ///
    /// With `now`, hours that have ended by then are left out, as `evaluate(_:from:)` leaves
    /// them out of the verdict; with `only`, nights not in it are not computed (the planner
    /// asks for the two or three it alerts); with `keepingMinima` false, the members' minima
    /// are counted but not kept (the planner needs the shares alone).
    public func probabilities(
        of ensemble: EnsembleForecast, from now: Int64? = nil, only: [LocalDate]? = nil, keepingMinima: Bool = true
    ) -> [NightProbability] {
        var order: [LocalDate] = []
        var hoursOfNight: [LocalDate: [Int]] = [:]
        for (index, hour) in ensemble.hours.enumerated() {
            if let now, hour.hasEnded(at: now) { continue }
            guard let night = night(of: hour) else { continue }
            if let only, !only.contains(night) { continue }
            if hoursOfNight[night] == nil { order.append(night) }
            hoursOfNight[night, default: []].append(index)
        }
        let levels: [(FrostLevel, Double)] = [
            (.frostRisk, thresholds.frostRiskC), (.freeze, thresholds.freezeC), (.hardFreeze, thresholds.hardFreezeC),
        ]
        return order.sorted().compactMap { night in
            let indices = hoursOfNight[night] ?? []
            switch ensemble.values {
            case .members(let members):
                // One pass per member, no intermediate arrays: planning asks this of every box.
                var minima: [Double] = []
                if keepingMinima { minima.reserveCapacity(members.count) }
                var covered = 0
                var atOrBelow = (0, 0, 0)
                for member in members {
                    var low = Double.infinity
                    for index in indices where index < member.count {
                        if let value = member[index], value.isFinite, value < low { low = value }
                    }
                    guard low.isFinite else { continue }
                    covered += 1
                    if low <= levels[0].1 { atOrBelow.0 += 1 }
                    if low <= levels[1].1 { atOrBelow.1 += 1 }
                    if low <= levels[2].1 { atOrBelow.2 += 1 }
                    if keepingMinima { minima.append(low) }
                }
                guard covered > 0 else { return nil }
                let share = { (count: Int) in Double(count) / Double(covered) }
                let byLevel: [FrostLevel: Double] = [
                    levels[0].0: share(atOrBelow.0), levels[1].0: share(atOrBelow.1), levels[2].0: share(atOrBelow.2),
                ]
                return NightProbability(night: night, byLevel: byLevel, members: covered, memberMinima: minima.sorted())
            case .spread(let mean, let spread):
                // One pass, no intermediate arrays: planning asks this of every box.
                var highest = [0.0, 0.0, 0.0]
                var likeliest: MeanAndSpread?
                var likeliestFreeze = -1.0
                for index in indices where index < mean.count && index < spread.count {
                    guard let m = mean[index], let s = spread[index], m.isFinite, s.isFinite else { continue }
                    let hour = MeanAndSpread(mean: m, spread: max(0, s))
                    for (position, (_, threshold)) in levels.enumerated() {
                        let p = hour.probability(atOrBelow: threshold)
                        if p > highest[position] { highest[position] = p }
                        if position == 1, p > likeliestFreeze {
                            likeliestFreeze = p
                            likeliest = hour
                        }
                    }
                }
                guard let likeliest else { return nil }
                var byLevel: [FrostLevel: Double] = [:]
                for (position, (level, _)) in levels.enumerated() { byLevel[level] = highest[position] }
                return NightProbability(night: night, byLevel: byLevel, meanAndSpread: likeliest)
            }
        }
    }

    /// `P(X ≤ threshold)` for X normal with this mean and standard deviation (a step at the
    /// mean when the spread is 0).
    public static func normalProbability(atOrBelow threshold: Double, mean: Double, spread: Double) -> Double {
        guard spread > 0 else { return mean <= threshold ? 1 : 0 }
        return 0.5 * erfc(-(threshold - mean) / (spread * 2.0.squareRoot()))
    }
}

/// What Open-Meteo charges for an ensemble request, per location: `max(1, variables × members
/// / 10 × max(1, days / 14))` — one variable for a week costs 4.0 on ICON-EPS (40 members),
/// 5.1 on ECMWF ENS (51), 3.1 on GFS ENS (31), 1 on a mean model.
public enum EnsembleWeight {
    public static func perLocation(variables: Int, members: Int, days: Int) -> Double {
        max(1, Double(variables) * Double(members) / 10 * max(1, Double(days) / 14))
    }
}

extension EnsembleWeight {
    /// Members (control included) of Open-Meteo's ensemble models, by `models=` name: ICON-EPS
    /// 40, ICON-EU-EPS 40, ICON-D2-EPS 20, ECMWF IFS ENS 51, GFS ENS 31, GEM 21. A model not
    /// listed needs its member count configured.
    public static let knownMembers: [String: Int] = [
        "icon_seamless": 40, "icon_global": 40, "icon_eu": 40, "icon_d2": 20, "ecmwf_ifs025": 51, "ecmwf_ifs04": 51, "ecmwf_aifs025": 51,
        "gfs_seamless": 31, "gfs025": 31, "gfs05": 31, "gem_global": 21,
    ]
}
