import FrostboxCore

/// A night's chance of frost on the status page (issue #47): `P(minimum ≤ threshold)` per
/// level, and on request the distribution it comes from.
public struct StatusChance: Sendable, Encodable {
    /// Probability 0…1 (three decimals) by level: `frost-risk`, `freeze`, `hard-freeze`.
    public var byLevel: [String: Double]
    /// Members with a temperature in the night (members source only).
    public var members: Int?
    /// Each member's night minimum, °C, ascending (members source, box detail only).
    public var memberMinimaC: [Double]?
    /// Mean and spread (standard deviation) at the night's likeliest hour, °C (spread source only).
    public var meanC: Double?
    public var spreadC: Double?

    /// The chance of `night`; with `distribution`, the member minima too (the map's list
    /// leaves them out: 51 numbers a night for thousands of boxes would swamp it).
    public init(_ night: NightProbability, distribution: Bool) {
        byLevel = Dictionary(
            uniqueKeysWithValues: FrostLevel.allCases.filter { $0 != .none }.map {
                ($0.description, StatusBoxMap.rounded(night.probability(of: $0), scale: 1_000))
            })
        members = night.members
        memberMinimaC = distribution && night.members != nil ? night.memberMinima.map { StatusBoxMap.rounded($0, scale: 100) } : nil
        meanC = night.meanAndSpread.map { StatusBoxMap.rounded($0.mean, scale: 100) }
        spreadC = night.meanAndSpread.map { StatusBoxMap.rounded($0.spread, scale: 100) }
    }
}

/// Where a box's chances came from: the ensemble model, its age and runs.
public struct StatusChanceSource: Sendable, Encodable {
    public var model: String
    /// Seconds since the ensemble was fetched.
    public var ageS: Int64
    /// The runs used, as `model@RFC 3339 initialisation`.
    public var runs: [String]

    init(_ chance: BoxChance, now: Int64) {
        model = chance.model
        ageS = max(0, now - chance.fetchedAt)
        runs = chance.runs.map { "\($0.model)@\(Timestamp.iso8601($0.initialisedAt))" }
    }
}

/// The body of `GET /admin/status/boxes/{key}`: one box with every night still ahead, each
/// with its chance and the distribution behind it, for the page's detail on a click.
public struct StatusBoxDetail: Sendable, Encodable {
    public var generatedAt: String
    public var key: Int64
    public var box: String
    public var lat: Double
    public var lon: Double
    public var subscribers: Int
    public var names: [String]
    public var `class`: String
    /// Nights not over yet, in time order.
    public var nights: [StatusBoxMap.Night]
    /// Each level's threshold, °C, by level.
    public var thresholdsC: [String: Double]
    /// The ensemble behind the chances; nil when the box has none cached or the chance of frost is off.
    public var chance: StatusChanceSource?
    public var forecastAgeS: Int64?

    public init(entry: BoxMapEntry, nights: [BoxNight], names: [String], chance: BoxChance?, thresholds: FrostThresholds, now: Int64) {
        let box = entry.state.box
        generatedAt = Timestamp.iso8601(now)
        key = box.key
        self.box = box.description
        lat = box.latitude
        lon = box.longitude
        subscribers = entry.state.subscribers
        self.names = names
        `class` = entry.mapClass.rawValue
        self.nights = nights.map { StatusBoxMap.Night($0, chance: chance?.night($0.night), distribution: true) }
        thresholdsC = StatusBoxMap.thresholds(thresholds)
        self.chance = chance.map { StatusChanceSource($0, now: now) }
        forecastAgeS = entry.state.forecastFetchedAt.map { max(0, now - $0) }
    }
}
