extension FrostRule {
    /// The verdict of this rule over `hours` (time-ordered). Pure: the same hours give the same verdict.
    ///
    /// Hours are grouped into nights by local wall clock: an hour at or after `nightStartHour`
    /// belongs to that evening's night, an hour before `nightEndHour` to the previous evening's.
    /// Under `.nightWindow` only those hours count; under `.anyHourBelow` daytime hours count too
    /// (they belong to the coming evening's night).
    public func evaluate(_ hours: [ForecastHour]) -> FrostVerdict {
        var nights: [NightVerdict] = []
        var index: [LocalDate: Int] = [:]
        for hour in hours {
            guard let temperature = hour.temperatureC, let night = night(of: hour) else { continue }
            let level = level(of: hour, temperature: temperature)
            let position: Int
            if let existing = index[night] {
                position = existing
            } else {
                position = nights.count
                index[night] = position
                nights.append(NightVerdict(night: night, level: .none, firstAtLevel: nil, coldest: nil, windowEnd: hour.time + 3600))
            }
            var verdict = nights[position]
            verdict.windowEnd = max(verdict.windowEnd, hour.time + 3600)
            if verdict.coldest?.temperatureC.map({ temperature < $0 }) ?? true { verdict.coldest = hour }
            if level > verdict.level {
                verdict.level = level
                verdict.firstAtLevel = hour
            }
            nights[position] = verdict
        }
        var overall = FrostVerdict(level: .none, firstAtLevel: nil, coldest: nil, nights: nights)
        for night in nights {
            if night.level > overall.level {
                overall.level = night.level
                overall.firstAtLevel = night.firstAtLevel
            }
            if let t = night.minimumC, overall.minimumC.map({ t < $0 }) ?? true { overall.coldest = night.coldest }
        }
        return overall
    }

    /// The night an hour belongs to, or nil when the rule ignores that hour.
    func night(of hour: ForecastHour) -> LocalDate? {
        let h = hour.local.hour
        if h >= nightStartHour { return hour.local.date }
        if h < nightEndHour { return hour.local.date.previous }
        return kind == .anyHourBelow ? hour.local.date : nil
    }

    /// The level of one hour under this rule.
    func level(of hour: ForecastHour, temperature: Double) -> FrostLevel {
        let t = thresholds
        if temperature <= t.hardFreezeC { return .hardFreeze }
        if temperature <= t.freezeC { return .freeze }
        switch kind {
        case .anyHourBelow:
            return temperature < t.frostRiskC ? .frostRisk : .none
        case .nightWindow:
            guard temperature <= t.frostRiskC,
                let cloud = hour.cloudCoverPercent, cloud <= t.riskMaxCloudCoverPercent,
                let wind = hour.windSpeedKmh, wind <= t.riskMaxWindKmh
            else { return .none }
            return .frostRisk
        }
    }
}
