/// A box's verdict for one night, kept so the night can be checked once it has happened
/// (issue #48): what the notifier last judged before the night began, with the forecast low,
/// the chance of each level and the model runs used.
public struct KeptVerdict: Sendable, Hashable {
    public var box: GeoBox
    /// Local date of the evening the night starts on.
    public var night: LocalDate
    /// The night's counted window, UTC epoch seconds (its end exclusive): the observed low
    /// is taken over the same hours.
    public var windowStart: Int64
    public var windowEnd: Int64
    /// The box's wall-clock offset from UTC at the window's start, seconds.
    public var utcOffsetSeconds: Int
    /// The level by the configured rule (no per-subscription thresholds).
    public var level: FrostLevel
    public var minimumC: Double?
    /// The chance of each level; empty without an ensemble.
    public var probabilities: [FrostLevel: Double]
    public var runs: [ModelRun]
    /// When the verdict was made, UTC epoch seconds.
    public var judgedAt: Int64

    public init(
        box: GeoBox, night: LocalDate, windowStart: Int64, windowEnd: Int64, utcOffsetSeconds: Int, level: FrostLevel, minimumC: Double?,
        probabilities: [FrostLevel: Double] = [:], runs: [ModelRun] = [], judgedAt: Int64
    ) {
        self.box = box
        self.night = night
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.utcOffsetSeconds = utcOffsetSeconds
        self.level = level
        self.minimumC = minimumC
        self.probabilities = probabilities
        self.runs = runs
        self.judgedAt = judgedAt
    }

    /// The kept verdicts of a box's forecast judged at `now`: every night whose window has not
    /// begun (a night under way is judged on hours partly past; the verdict kept is the last
    /// one made before it), with their chances when `chances` covers them.
    public static func of(
        _ forecast: BoxForecast, box: GeoBox, rule: FrostRule, chances: [NightProbability] = [], runs: [ModelRun] = [], now: Int64
    ) -> [KeptVerdict] {
        let byNight = Dictionary(chances.map { ($0.night, $0) }, uniquingKeysWith: { first, _ in first })
        var firstHours: [LocalDate: ForecastHour] = [:]
        for hour in forecast.hours.sorted(by: { $0.time < $1.time }) {
            if let night = rule.night(of: hour), firstHours[night] == nil { firstHours[night] = hour }
        }
        let levels: [FrostLevel] = [.frostRisk, .freeze, .hardFreeze]
        return rule.evaluate(forecast.hours).nights.compactMap { verdict in
            guard verdict.isComplete, let first = firstHours[verdict.night], first.time > now else { return nil }
            let chance = byNight[verdict.night]
            return KeptVerdict(
                box: box, night: verdict.night, windowStart: first.time, windowEnd: verdict.windowEnd,
                utcOffsetSeconds: Int(first.local.wallClockSeconds - first.time), level: verdict.level, minimumC: verdict.minimumC,
                probabilities: chance.map { c in Dictionary(uniqueKeysWithValues: levels.map { ($0, c.probability(of: $0)) }) } ?? [:],
                runs: runs, judgedAt: now)
        }
    }
}

/// An alert that went out for a box's night.
public struct NightAlert: Sendable, Hashable {
    public var box: GeoBox
    public var night: LocalDate
    public var level: FrostLevel
    public var sentAt: Int64
    public var lead: AlertLead

    public init(box: GeoBox, night: LocalDate, level: FrostLevel, sentAt: Int64, lead: AlertLead) {
        self.box = box
        self.night = night
        self.level = level
        self.sentAt = sentAt
        self.lead = lead
    }
}

/// A kept night as stored: the verdict, the alerts that went out for it, and the check once made.
public struct NightRecord: Sendable, Hashable {
    public var verdict: KeptVerdict
    /// The highest level alerted (`none`: no alert went out).
    public var alertedLevel: FrostLevel
    /// When the first alert went out, and its lead.
    public var firstAlertAt: Int64?
    public var lead: AlertLead?

    public init(verdict: KeptVerdict, alertedLevel: FrostLevel = .none, firstAlertAt: Int64? = nil, lead: AlertLead? = nil) {
        self.verdict = verdict
        self.alertedLevel = alertedLevel
        self.firstAlertAt = firstAlertAt
        self.lead = lead
    }
}

/// Where the notifier keeps each subscribed box's nights until they are checked and scored
/// (issue #48). One row per box and night, on both databases.
public protocol NightRecordStore: Sendable {
    /// Keeps `verdicts`, each replacing the one kept for its box and night unless that night
    /// had begun by the time the kept one was made (the kept verdict is the last before the night).
    func keep(_ verdicts: [KeptVerdict]) async throws
    /// Marks alerts that went out: the night's alerted level rises to the highest, its first
    /// alert stays the first. An alert for a night with no kept verdict is ignored.
    func keep(_ alerts: [NightAlert]) async throws
    /// The kept nights of `boxes` (for tests and the report).
    func nightRecords(in boxes: [GeoBox]) async throws -> [NightRecord]
    /// Drops nights whose window ended before `endedBefore`; returns how many.
    @discardableResult
    func purgeNights(endedBefore: Int64) async throws -> Int
}
