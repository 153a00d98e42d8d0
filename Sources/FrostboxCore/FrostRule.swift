/// How cold it gets: the levels of a frost verdict, in increasing severity.
public enum FrostLevel: Int, Sendable, Hashable, Comparable, Codable, CaseIterable, CustomStringConvertible {
    case none = 0
    case frostRisk = 1
    case freeze = 2
    case hardFreeze = 3

    /// Wire and log name: `none`, `frost-risk`, `freeze`, `hard-freeze`.
    public var description: String {
        switch self {
        case .none: "none"
        case .frostRisk: "frost-risk"
        case .freeze: "freeze"
        case .hardFreeze: "hard-freeze"
        }
    }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    public static func < (a: FrostLevel, b: FrostLevel) -> Bool { a.rawValue < b.rawValue }
}

/// Thresholds of a frost rule, in °C (and % / km/h for the radiation-frost conditions).
public struct FrostThresholds: Sendable, Hashable, Codable {
    /// At or below: frost risk (under the rule's extra conditions).
    public var frostRiskC: Double
    /// At or below: freeze.
    public var freezeC: Double
    /// At or below: hard freeze.
    public var hardFreezeC: Double
    /// Frost risk needs cloud cover at or below this (clear sky, radiation frost).
    public var riskMaxCloudCoverPercent: Double
    /// Frost risk needs wind at or below this (calm air).
    public var riskMaxWindKmh: Double

    public init(frostRiskC: Double = 3, freezeC: Double = 0, hardFreezeC: Double = -2, riskMaxCloudCoverPercent: Double = 40, riskMaxWindKmh: Double = 10) {
        self.frostRiskC = frostRiskC
        self.freezeC = freezeC
        self.hardFreezeC = hardFreezeC
        self.riskMaxCloudCoverPercent = riskMaxCloudCoverPercent
        self.riskMaxWindKmh = riskMaxWindKmh
    }
}

/// A frost rule: which hours count and what makes each level. Presets `default` and `legacy`.
public struct FrostRule: Sendable, Hashable {
    /// How hours are judged.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The existing server's rule: any hour below the frost-risk threshold within the horizon.
        case anyHourBelow
        /// Only the local night window; frost risk only under clear, calm skies.
        case nightWindow
    }

    /// Preset name this rule came from (`default`, `legacy`), for logs and grouping.
    public var name: String
    public var kind: Kind
    public var thresholds: FrostThresholds
    /// Local hour the night window opens (inclusive).
    public var nightStartHour: Int
    /// Local hour the night window closes (exclusive), on the next day.
    public var nightEndHour: Int

    public init(name: String, kind: Kind, thresholds: FrostThresholds = FrostThresholds(), nightStartHour: Int = 18, nightEndHour: Int = 10) {
        self.name = name
        self.kind = kind
        self.thresholds = thresholds
        self.nightStartHour = nightStartHour
        self.nightEndHour = nightEndHour
    }

    /// Night window 18:00–10:00; ≤ 0 °C freeze, ≤ −2 °C hard freeze, ≤ 3 °C frost risk under
    /// cloud ≤ 40 % and wind ≤ 10 km/h.
    public static let `default` = FrostRule(name: "default", kind: .nightWindow)

    /// The existing server's rule: any hour below 3 °C within the horizon.
    public static let legacy = FrostRule(name: "legacy", kind: .anyHourBelow)

    /// Every preset, in the order they are documented. The one list of preset names: HTTP
    /// validation, the configuration keys and the CLI all take theirs from here.
    public static let allPresets: [FrostRule] = [.default, .legacy]

    /// The preset names (`default`, `legacy`), in the order of `allPresets`.
    public static let presetNames: [String] = allPresets.map(\.name)

    /// Every preset by name.
    public static let presets: [String: FrostRule] = Dictionary(uniqueKeysWithValues: allPresets.map { ($0.name, $0) })

    /// The preset names as a reader lists them: `default or legacy`.
    public static var presetNameList: String {
        presetNames.count <= 1
            ? presetNames.joined() : presetNames.dropLast().joined(separator: ", ") + " or " + presetNames[presetNames.count - 1]
    }

    /// This rule with a subscription's threshold overrides applied.
    public func applying(_ settings: AlertSettings) -> FrostRule {
        var rule = self
        if let value = settings.frostRiskC { rule.thresholds.frostRiskC = value }
        if let value = settings.freezeC { rule.thresholds.freezeC = value }
        if let value = settings.hardFreezeC { rule.thresholds.hardFreezeC = value }
        return rule
    }
}

/// The verdict for one night (the window that opens on `night`'s evening).
public struct NightVerdict: Sendable, Hashable, Codable {
    /// Local date of the evening the night starts on: the event's date.
    public var night: LocalDate
    public var level: FrostLevel
    /// First hour at `level` (nil when `level` is none).
    public var firstAtLevel: ForecastHour?
    /// Coldest hour of the night's counted hours.
    public var coldest: ForecastHour?
    /// End of the counted window, UTC epoch seconds (cut by the horizon when it ends earlier).
    public var windowEnd: Int64
    /// Whether the series covers the night's whole window, every hour with a temperature.
    /// A night cut by the horizon (or by `evaluate(_:from:)` at its start) is not complete:
    /// its frost is real, but its "no frost" proves nothing.
    public var isComplete: Bool

    public init(night: LocalDate, level: FrostLevel, firstAtLevel: ForecastHour?, coldest: ForecastHour?, windowEnd: Int64, isComplete: Bool = true) {
        self.night = night
        self.level = level
        self.firstAtLevel = firstAtLevel
        self.coldest = coldest
        self.windowEnd = windowEnd
        self.isComplete = isComplete
    }

    /// Lowest temperature of the night, °C.
    public var minimumC: Double? { coldest?.temperatureC }
}

/// A frost verdict over the whole horizon, with its per-night breakdown.
public struct FrostVerdict: Sendable, Hashable, Codable {
    /// The worst level over the horizon.
    public var level: FrostLevel
    /// First hour at `level`.
    public var firstAtLevel: ForecastHour?
    /// Coldest counted hour over the horizon.
    public var coldest: ForecastHour?
    /// One entry per night touched by the horizon, in time order.
    public var nights: [NightVerdict]

    public init(level: FrostLevel, firstAtLevel: ForecastHour?, coldest: ForecastHour?, nights: [NightVerdict]) {
        self.level = level
        self.firstAtLevel = firstAtLevel
        self.coldest = coldest
        self.nights = nights
    }

    /// Lowest temperature over the horizon, °C.
    public var minimumC: Double? { coldest?.temperatureC }
}

extension FrostThresholds {
    /// The °C threshold at or below which `level` starts; nil for `.none`.
    public func threshold(of level: FrostLevel) -> Double? {
        switch level {
        case .none: nil
        case .frostRisk: frostRiskC
        case .freeze: freezeC
        case .hardFreeze: hardFreezeC
        }
    }
}
