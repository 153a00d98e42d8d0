/// When a night's first alert went out, counted in days before the night (issue #48): the
/// scores are kept apart by it, as a forecast is the better the nearer its night.
public enum AlertLead: String, Sendable, Hashable, CaseIterable, Codable {
    /// On the night's own date (the evening before it) or during it.
    case sameNight = "same-night"
    /// The day before.
    case nextNight = "next-night"
    /// Two days or more before.
    case later

    /// The lead of an alert sent on local date `sent` for the night starting on the evening of `night`.
    public init(sent: LocalDate, night: LocalDate) {
        let days = night.daysSinceEpoch - sent.daysSinceEpoch
        self = days <= 0 ? .sameNight : days == 1 ? .nextNight : .later
    }
}

/// Where a box lies, for scores per region: its country and first-level division, as the
/// place index names the place nearest to it.
public struct VerificationRegion: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// ISO 3166 alpha-2 code; `??` when no place is known near the box.
    public var countryCode: String
    /// The division's code within the country (GeoNames `admin1`); nil when unknown.
    public var admin1Code: String?

    public init(countryCode: String, admin1Code: String? = nil) {
        self.countryCode = countryCode
        self.admin1Code = admin1Code.flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let unknown = VerificationRegion(countryCode: "??")

    /// The region's country alone.
    public var country: VerificationRegion { VerificationRegion(countryCode: countryCode) }

    /// `FI` or `FI.18`.
    public var description: String { admin1Code.map { "\(countryCode).\($0)" } ?? countryCode }

    public static func < (a: Self, b: Self) -> Bool { a.description < b.description }
}

/// One box-night checked against what happened: what was forecast (and alerted), and the
/// lowest temperature observed over the same night window.
public struct VerifiedNight: Sendable, Hashable {
    /// Local date of the evening the night starts on.
    public var night: LocalDate
    public var region: VerificationRegion
    /// The highest level alerted for the night (`none`: no alert went out).
    public var alertedLevel: FrostLevel
    /// The forecast's lowest temperature of the night, °C, when one was kept.
    public var forecastMinimumC: Double?
    /// The chance of each level when the alert (or the last verdict) was made; empty without
    /// an ensemble.
    public var probabilities: [FrostLevel: Double]
    /// When the first alert went out; nil when none did.
    public var lead: AlertLead?
    /// The lowest temperature observed over the night window, °C.
    public var observedMinimumC: Double
    /// How many box-nights this one stands for: 1 for a night checked because it was alerted
    /// (every alerted night is), `population / sample` for a sampled one.
    public var weight: Double
    /// The sampling stratum: nights of one stratum were drawn at one rate (census strata,
    /// where every night was checked, add no sampling error).
    public var stratum: String
    /// The box the night was forecast for, when known: it places the night's region on a map.
    public var box: GeoBox?

    public init(
        night: LocalDate, region: VerificationRegion, alertedLevel: FrostLevel, forecastMinimumC: Double? = nil,
        probabilities: [FrostLevel: Double] = [:], lead: AlertLead? = nil, observedMinimumC: Double, weight: Double = 1, stratum: String = "all",
        box: GeoBox? = nil
    ) {
        self.night = night
        self.region = region
        self.alertedLevel = alertedLevel
        self.forecastMinimumC = forecastMinimumC
        self.probabilities = probabilities
        self.lead = lead
        self.observedMinimumC = observedMinimumC
        self.weight = weight
        self.stratum = stratum
        self.box = box
    }

    /// Whether the level was forecast (alerted at it or at a colder one).
    public func forecast(_ level: FrostLevel) -> Bool { alertedLevel >= level }

    /// Whether the level happened: the observed low at or below its threshold (temperature
    /// alone: the archive has no night-long cloud and wind to judge frost risk by).
    public func observed(_ level: FrostLevel, thresholds: FrostThresholds) -> Bool {
        guard let threshold = thresholds.threshold(of: level) else { return true }
        return observedMinimumC <= threshold
    }
}
