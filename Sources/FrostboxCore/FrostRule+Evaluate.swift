extension FrostRule {
    /// The verdict of this rule over `hours`. Pure: the same hours give the same verdict.
    ///
    /// Hours are grouped into nights by local wall clock, so a DST night simply has 15 or
    /// 17 hours. Under `.nightWindow` an hour counts when it lies in the window
    /// `nightStartHour`–`nightEndHour` (an hour at or after the start belongs to that
    /// evening's night, one before the end to the previous evening's when the window
    /// crosses midnight). Under `.anyHourBelow` every hour counts: the day from
    /// `nightEndHour` belongs to the coming evening's night.
    ///
    /// Hours without a finite temperature never raise a level; they and a horizon that cuts a
    /// window short leave that night `isComplete == false`.
    public func evaluate(_ hours: [ForecastHour]) -> FrostVerdict {
        let ordered = hours.sorted { $0.time < $1.time }
        var nights: [NightAccumulator] = []
        var index: [LocalDate: Int] = [:]
        for hour in ordered {
            guard let night = night(of: hour) else { continue }
            let position: Int
            if let existing = index[night] {
                position = existing
            } else {
                position = nights.count
                index[night] = position
                nights.append(NightAccumulator(night: night, first: hour))
            }
            nights[position].add(hour, level: level(of: hour))
        }
        let verdicts = nights.sorted { $0.night < $1.night }.map { $0.verdict(window: window(of: $0.night)) }
        var overall = FrostVerdict(level: .none, firstAtLevel: nil, coldest: nil, nights: verdicts)
        for night in verdicts {
            if night.level > overall.level {
                overall.level = night.level
                overall.firstAtLevel = night.firstAtLevel
            }
            if let t = night.minimumC, overall.minimumC.map({ t < $0 }) ?? true { overall.coldest = night.coldest }
        }
        return overall
    }

    /// The verdict over the hours of `hours` that have not ended at `now` (UTC epoch
    /// seconds): what is still ahead. A night already under way is then incomplete. Alert
    /// planning judges forecasts this way.
    public func evaluate(_ hours: [ForecastHour], from now: Int64) -> FrostVerdict {
        evaluate(hours.filter { !$0.hasEnded(at: now) })
    }

    /// The night an hour belongs to, or nil when the rule ignores that hour.
    func night(of hour: ForecastHour) -> LocalDate? {
        let h = hour.local.hour
        let start = Self.clampHour(nightStartHour)
        let end = Self.clampHour(nightEndHour)
        switch kind {
        case .anyHourBelow:
            return h < end ? hour.local.date.previous : hour.local.date
        case .nightWindow:
            if start > end {
                if h >= start { return hour.local.date }
                if h < end { return hour.local.date.previous }
                return nil
            }
            if start < end { return (start..<end).contains(h) ? hour.local.date : nil }
            // start == end: a 24-hour window from `start`.
            return h >= start ? hour.local.date : hour.local.date.previous
        }
    }

    /// The wall-clock window of a night: its first hour and the hour after its last.
    func window(of night: LocalDate) -> (start: LocalDateTime, end: LocalDateTime) {
        let start = Self.clampHour(nightStartHour)
        let end = Self.clampHour(nightEndHour)
        switch kind {
        case .anyHourBelow:
            return (LocalDateTime(date: night, hour: end), LocalDateTime(date: night.next, hour: end))
        case .nightWindow:
            if start < end { return (LocalDateTime(date: night, hour: start), LocalDateTime(date: night, hour: end)) }
            let endDate = night.next
            return (LocalDateTime(date: night, hour: start), LocalDateTime(date: endDate, hour: start == end ? start : end))
        }
    }

    /// The level of one hour under this rule (none without a finite temperature).
    func level(of hour: ForecastHour) -> FrostLevel {
        guard let temperature = hour.temperatureC, temperature.isFinite else { return .none }
        let t = thresholds
        if temperature <= t.hardFreezeC { return .hardFreeze }
        if temperature <= t.freezeC { return .freeze }
        switch kind {
        case .anyHourBelow:
            return temperature < t.frostRiskC ? .frostRisk : .none
        case .nightWindow:
            guard temperature <= t.frostRiskC,
                let cloud = hour.cloudCoverPercent, cloud.isFinite, cloud <= t.riskMaxCloudCoverPercent,
                let wind = hour.windSpeedKmh, wind.isFinite, wind <= t.riskMaxWindKmh
            else { return .none }
            return .frostRisk
        }
    }

    static func clampHour(_ hour: Int) -> Int { min(max(hour, 0), 23) }
}

/// One night's hours as they are folded in, in time order.
private struct NightAccumulator {
    let night: LocalDate
    let first: ForecastHour
    var last: ForecastHour
    var level = FrostLevel.none
    var firstAtLevel: ForecastHour?
    var coldest: ForecastHour?
    var contiguous = true
    var everyHourHasTemperature = true

    init(night: LocalDate, first: ForecastHour) {
        self.night = night
        self.first = first
        self.last = first
    }

    mutating func add(_ hour: ForecastHour, level hourLevel: FrostLevel) {
        if hour.time != first.time, hour.time - last.time > 3_600 { contiguous = false }
        last = hour
        guard let temperature = hour.temperatureC, temperature.isFinite else {
            everyHourHasTemperature = false
            return
        }
        if coldest?.temperatureC.map({ temperature < $0 }) ?? true { coldest = hour }
        if hourLevel > level {
            level = hourLevel
            firstAtLevel = hour
        }
    }

    func verdict(window: (start: LocalDateTime, end: LocalDateTime)) -> NightVerdict {
        let lastWallClockHour = LocalDateTime(wallClockSeconds: window.end.wallClockSeconds - 3_600)
        let startsAtWindowStart = first.local.date == window.start.date && first.local.hour == window.start.hour
        let reachesWindowEnd = last.local.date == lastWallClockHour.date && last.local.hour == lastWallClockHour.hour
        return NightVerdict(
            night: night, level: level, firstAtLevel: firstAtLevel, coldest: coldest,
            windowEnd: last.time + 3_600,
            isComplete: startsAtWindowStart && reachesWindowEnd && contiguous && everyHourHasTemperature)
    }
}

extension ForecastHour {
    /// Whether the hour is over at `now` (UTC epoch seconds): it started an hour or more ago.
    public func hasEnded(at now: Int64) -> Bool { time + 3_600 <= now }
}
