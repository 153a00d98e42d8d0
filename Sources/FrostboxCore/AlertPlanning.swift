import Foundation

/// Alert planning: from a box's forecast, the subscriptions in that box and what each device
/// has already been sent, the alerts to send now. Pure: the same inputs give the same plan.
public struct AlertPlanner: Sendable {
    /// Rule presets by name.
    public var rules: [String: FrostRule]
    /// The preset used when a subscription names none (or an unknown one).
    public var defaultRuleName: String
    /// How many nights after tonight are alerted (1: tomorrow night too). From local midnight
    /// until noon the night under way is alerted as well.
    public var nightsAhead: Int
    /// An alerted event clears when the night's low rises above the level's threshold by more than this, °C.
    public var allClearMarginC: Double
    /// The chance of frost at which a subscription without its own `min_probability` is
    /// alerted when the box has an ensemble (0: the deterministic verdict).
    public var defaultMinProbability: Double

    public init(
        rules: [String: FrostRule] = FrostRule.presets, defaultRuleName: String = FrostRule.default.name, nightsAhead: Int = 1, allClearMarginC: Double = 1,
        defaultMinProbability: Double = 0.5
    ) {
        self.rules = rules
        self.defaultRuleName = defaultRuleName
        self.nightsAhead = max(0, nightsAhead)
        self.allClearMarginC = allClearMarginC
        self.defaultMinProbability = min(1, max(0, defaultMinProbability))
    }

    /// The chance a subscription is alerted at (0: deterministic).
    public func minProbability(for settings: AlertSettings) -> Double {
        min(1, max(0, settings.minProbability ?? defaultMinProbability))
    }

    /// The effective rule of a subscription: its preset (or the default) with its thresholds applied.
    public func rule(for settings: AlertSettings) -> FrostRule {
        let preset = settings.rule.flatMap { rules[$0] } ?? rules[defaultRuleName] ?? .default
        return preset.applying(settings)
    }

    /// The alerts for one box at `now` (UTC epoch seconds).
    ///
    /// - A device gets one alert per event; places of the device in the box are named together.
    /// - A night alerted before gets another alert only at a higher level (an escalation).
    /// - With `allClear` set on one of the device's places in the box, an alerted night whose
    ///   low now lies above the alerted level's threshold + `allClearMarginC` at every place
    ///   gets one all-clear.
    /// - Hours already over are ignored; the nights considered are tonight (the night starting
    ///   on today's local date), the `nightsAhead` after it and, from midnight until noon, the
    ///   night under way.
    /// - Each alert's timing: at once when the device's quiet hours and the named places'
    ///   delivery windows allow it now, else held until they do (`DeliveryTimings`).
    /// - Each alert names its night (`RelativeNight`) as the place's wall clock will when the
    ///   alert goes out: now, or when its hold ends.
    /// - With an `ensemble` for the box, a subscription whose `minProbability` is above 0 is
    ///   judged by the chance of frost instead (issue #47): a level is alerted once its
    ///   probability reaches the subscription's minimum, escalated when a higher level's does,
    ///   and cleared when the alerted level's falls below it. A night the ensemble does not
    ///   cover is judged by the deterministic verdict.
    public func plan(
        forecast: BoxForecast, ensemble: EnsembleForecast? = nil, places: [SubscribedPlace], alerted: [AlertedEvent], now: Int64
    ) -> BoxPlan {
        guard let box = forecast.box, !places.isEmpty else { return BoxPlan() }
        guard forecast.hours.contains(where: { !$0.hasEnded(at: now) }) else { return BoxPlan() }

        let localNow = Self.localTime(at: now, in: forecast)
        var nights: [LocalDate] = localNow.hour < 12 ? [localNow.date.previous] : []
        nights.append(localNow.date)
        for _ in 0..<nightsAhead { nights.append(nights[nights.count - 1].next) }

        // One verdict per distinct effective rule, not per subscription.
        var distinctRules: [FrostRule] = []
        var verdicts: [[LocalDate: NightVerdict]] = []
        // The chance of frost by rule and night, rule-major (`rule * nights.count + night`).
        var chances: [NightChance?] = []
        var ruleOfPlace: [Int] = []
        var minimumOfPlace: [Double] = []
        ruleOfPlace.reserveCapacity(places.count)
        for place in places {
            let rule = rule(for: place.settings)
            minimumOfPlace.append(ensemble == nil ? 0 : minProbability(for: place.settings))
            if let index = distinctRules.firstIndex(of: rule) {
                ruleOfPlace.append(index)
            } else {
                distinctRules.append(rule)
                let verdict = rule.evaluate(forecast.hours, from: now)
                var byNight: [LocalDate: NightVerdict] = [:]
                for night in verdict.nights where nights.contains(night.night) { byNight[night.night] = night }
                verdicts.append(byNight)
                var chanceByNight = [NightChance?](repeating: nil, count: nights.count)
                if let ensemble {
                    // Hours already over are left out, as the deterministic verdict leaves them out.
                    for night in rule.probabilities(of: ensemble, from: now, only: nights, keepingMinima: false) {
                        if let index = nights.firstIndex(of: night.night) { chanceByNight[index] = NightChance(night) }
                    }
                }
                chances += chanceByNight
                ruleOfPlace.append(distinctRules.count - 1)
            }
        }

        var history: [DeviceNight: NightHistory] = [:]
        for event in alerted where event.event.box == box {
            let key = DeviceNight(token: event.token, night: event.event.night)
            var entry = history[key] ?? NightHistory()
            if event.kind == .allClear {
                entry.allClearSent = true
            } else {
                entry.level = max(entry.level, event.event.level)
                if !event.neverSent { entry.seen = true }
            }
            history[key] = entry
        }

        let order = places.indices.sorted {
            (places[$0].token, places[$0].subscriptionID) < (places[$1].token, places[$1].subscriptionID)
        }
        var alerts: [PlannedAlert] = []
        var timings = DeliveryTimings(forecast: forecast, now: now)
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, places[order[end]].token == places[order[start]].token { end += 1 }
            let device = order[start..<end]
            for (nightIndex, night) in nights.enumerated() {
                let context = NightContext(
                    box: box, night: night, places: places, device: device, ruleOfPlace: ruleOfPlace,
                    verdicts: verdicts, chances: chances, nightIndex: nightIndex, nightCount: nights.count, minimumOfPlace: minimumOfPlace,
                    rules: distinctRules,
                    relative: RelativeNight(night: night, at: localNow))
                if let planned = planNight(context, history: history[DeviceNight(token: places[order[start]].token, night: night)]) {
                    var alert = planned.alert
                    alert.timing = timings.timing(of: alert, named: planned.named, in: places)
                    if case .hold(let until) = alert.timing {
                        alert.relativeNight = RelativeNight(night: night, at: Self.localTime(at: until, in: forecast))
                    }
                    alerts.append(alert)
                }
            }
            start = end
        }
        return BoxPlan(alerts: alerts, verdictsComputed: distinctRules.count)
    }

    // MARK: One device, one night

    /// A night's chance of each level, kept inline (no dictionary to hash or copy): the
    /// planner asks it of every place, night and device.
    struct NightChance {
        var frostRisk: Double
        var freeze: Double
        var hardFreeze: Double

        init(_ night: NightProbability) {
            frostRisk = night.probability(of: .frostRisk)
            freeze = night.probability(of: .freeze)
            hardFreeze = night.probability(of: .hardFreeze)
        }

        func probability(of level: FrostLevel) -> Double {
            switch level {
            case .none: 1
            case .frostRisk: frostRisk
            case .freeze: freeze
            case .hardFreeze: hardFreeze
            }
        }

        /// The highest level whose probability reaches `minimum` (`none` when no level does).
        func level(reaching minimum: Double) -> FrostLevel {
            if hardFreeze >= minimum { return .hardFreeze }
            if freeze >= minimum { return .freeze }
            return frostRisk >= minimum ? .frostRisk : .none
        }
    }

    private struct DeviceNight: Hashable {
        var token: DeviceToken
        var night: LocalDate
    }

    private struct NightHistory {
        var level: FrostLevel = .none
        var allClearSent = false
        /// Whether an alert of the night reached the person (was not only held).
        var seen = false
    }

    private struct NightContext {
        var box: GeoBox
        var night: LocalDate
        var places: [SubscribedPlace]
        /// Indices into `places` of one device, oldest subscription first.
        var device: ArraySlice<Int>
        var ruleOfPlace: [Int]
        var verdicts: [[LocalDate: NightVerdict]]
        /// The chance of frost by rule and night, rule-major (nil where there is none).
        var chances: [NightChance?]
        /// This night's place among the nights planned, and how many there are.
        var nightIndex: Int
        var nightCount: Int
        /// Each place's minimum probability (0: judged by the deterministic verdict).
        var minimumOfPlace: [Double]
        var rules: [FrostRule]
        var relative: RelativeNight

        func verdict(_ place: Int) -> NightVerdict? { verdicts[ruleOfPlace[place]][night] }

        /// The night's chance of frost for a place judged by probability, nil otherwise.
        func chance(_ place: Int) -> NightChance? {
            guard minimumOfPlace[place] > 0 else { return nil }
            return chances[ruleOfPlace[place] * nightCount + nightIndex]
        }

        /// The level a place reaches this night: by probability when it is judged so, else by the verdict.
        func level(_ place: Int) -> FrostLevel {
            if let chance = chance(place) { return chance.level(reaching: minimumOfPlace[place]) }
            return verdict(place)?.level ?? .none
        }
    }

    /// The night's alert for one device, if any, and the indices of the places it names.
    private func planNight(_ c: NightContext, history: NightHistory?) -> (alert: PlannedAlert, named: [Int])? {
        let alertedLevel = history?.level ?? .none
        var level = FrostLevel.none
        for place in c.device { level = max(level, c.level(place)) }

        if level >= .frostRisk, level > alertedLevel {
            let named = Array(c.device.filter { c.level($0) >= .frostRisk })
            var alert = makeAlert(c, named: named, level: level, kind: alertedLevel == .none ? .frost : .escalation)
            alert.isFirstSeen = alert.kind == .escalation && history?.seen != true
            return (alert, named)
        }

        guard alertedLevel >= .frostRisk, history?.allClearSent != true,
            c.device.contains(where: { c.places[$0].settings.allClear })
        else { return nil }
        for place in c.device {
            if let chance = c.chance(place) {
                guard chance.probability(of: alertedLevel) < c.minimumOfPlace[place] else { return nil }
                continue
            }
            guard let minimum = c.verdict(place)?.minimumC,
                let threshold = c.rules[c.ruleOfPlace[place]].thresholds.threshold(of: alertedLevel),
                minimum > threshold + allClearMarginC
            else { return nil }
        }
        return (makeAlert(c, named: Array(c.device), level: .none, kind: .allClear, chanceOf: alertedLevel), Array(c.device))
    }

    /// The alert naming `named`; with places judged by probability, it carries the highest
    /// chance among them of `chanceOf` (the alert's level, or the level an all-clear clears).
    private func makeAlert(_ c: NightContext, named: [Int], level: FrostLevel, kind: AlertKind, chanceOf: FrostLevel? = nil) -> PlannedAlert {
        var names: [String] = []
        var minimum: Double?
        var coldestAt: LocalDateTime?
        var windowEnd: Int64 = 0
        var frostStartsAt: Int64?
        for place in named {
            let name = c.places[place].name
            if !names.contains(name) { names.append(name) }
            guard let verdict = c.verdict(place) else { continue }
            windowEnd = max(windowEnd, verdict.windowEnd)
            if kind != .allClear, let first = verdict.firstAtLevel?.time { frostStartsAt = min(frostStartsAt ?? first, first) }
            if let t = verdict.minimumC, minimum.map({ t < $0 }) ?? true {
                minimum = t
                coldestAt = verdict.coldest?.local
            }
        }
        let first = c.places[named[0]]
        var alert = PlannedAlert(
            token: first.token, platform: first.platform, app: first.app, environment: first.environment,
            event: FrostEvent(box: c.box, night: c.night, level: level), kind: kind, places: names,
            unit: first.unit, minimumC: minimum, coldestAt: coldestAt, windowEnd: windowEnd, relativeNight: c.relative)
        alert.frostStartsAt = frostStartsAt
        alert.deviceKey = first.deviceKey
        let judged = chanceOf ?? level
        let byChance = named.compactMap { place in c.chance(place).map { ($0.probability(of: judged), place) } }
        if let highest = byChance.max(by: { $0.0 < $1.0 }) {
            alert.probability = highest.0
            alert.thresholdC = c.rules[c.ruleOfPlace[highest.1]].thresholds.threshold(of: judged)
        }
        return alert
    }

    // MARK: Local time

    /// The forecast's IANA zone (`timezone=auto`); when the name is unknown here, the fixed
    /// offset the forecast shows at `now`.
    public static func zone(of forecast: BoxForecast, at now: Int64) -> TimeZone {
        if let zone = TimeZone(identifier: forecast.timezone) { return zone }
        let local = localTime(at: now, in: forecast)
        let offset = Int(local.wallClockSeconds - now) / 60 * 60
        return TimeZone(secondsFromGMT: offset) ?? .gmt
    }

    /// The wall clock at the forecast's place at `now`, from the hour covering `now` (so DST
    /// is right), else from the series' UTC offset.
    public static func localTime(at now: Int64, in forecast: BoxForecast) -> LocalDateTime {
        var offset = Int64(forecast.utcOffsetSeconds)
        if let hour = forecast.hours.last(where: { $0.time <= now }) ?? forecast.hours.first {
            offset = hour.local.wallClockSeconds - hour.time
        }
        return LocalDateTime(wallClockSeconds: now + offset)
    }
}
