/// Where a kept night stands in its check against what happened (issue #48). A night with no
/// state is pending: its check is not yet due, or due and not yet chosen.
public enum NightCheckState: Int, Sendable, Hashable, CaseIterable {
    /// To be fetched from the archive: every alerted night, and the sample of the others.
    case chosen = 1
    /// Not alerted and not drawn: the sampled nights of its stratum stand for it.
    case skipped = 2
    /// Checked: the observed low is kept.
    case observed = 3
    /// The archive never had the whole night: left out of the scores.
    case unavailable = 4
}

/// A kept night whose check is due and not yet chosen or skipped.
public struct DueNight: Sendable, Hashable {
    public var box: GeoBox
    public var night: LocalDate
    public var alertedLevel: FrostLevel

    public init(box: GeoBox, night: LocalDate, alertedLevel: FrostLevel) {
        self.box = box
        self.night = night
        self.alertedLevel = alertedLevel
    }
}

/// What becomes of a due night: chosen (with the weight it stands for) or skipped, and the
/// region and stratum it is scored in.
public struct NightChoice: Sendable, Hashable {
    public var box: GeoBox
    public var night: LocalDate
    public var region: VerificationRegion
    public var stratum: String
    /// Box-nights it stands for: 1 for an alerted night, `N / n` for a sampled one, 0 skipped.
    public var weight: Double
    public var chosen: Bool

    public init(box: GeoBox, night: LocalDate, region: VerificationRegion, stratum: String, weight: Double, chosen: Bool) {
        self.box = box
        self.night = night
        self.region = region
        self.stratum = stratum
        self.weight = weight
        self.chosen = chosen
    }
}

/// Draws the nights to check (issue #48). Every alerted night is checked (a census: its false
/// alarms and hits are counted, not estimated). A miss is only seen among the nights that were
/// not alerted, so of those a sample is drawn per stratum — one region's boxes on one night —
/// and each drawn night stands for `N / n` of its stratum. The draw ranks boxes by a hash of
/// the box alone, so drawing again gives the same sample, and a region's drawn boxes are the
/// same night after night (a panel): a box's chosen nights then go to the archive as one
/// location, which Open-Meteo charges as one whatever the days (up to 14 at one variable).
public enum NightSampler {
    /// The stratum of every alerted night.
    public static let censusStratum = "alerted"

    /// The choices for `due`: `perStratum` not-alerted nights drawn in each (region, night).
    /// `pass` names this draw in its strata (`FI.18|2026-11-20|pass`): nights of one region and
    /// night drawn in another pass (a later run, another chunk) form a stratum of their own.
    public static func choose(_ due: [DueNight], regions: [GeoBox: VerificationRegion], perStratum: Int, pass: String = "") -> [NightChoice] {
        var choices: [NightChoice] = []
        choices.reserveCapacity(due.count)
        var strata: [String: [(night: DueNight, region: VerificationRegion)]] = [:]
        for night in due {
            let region = regions[night.box] ?? .unknown
            if night.alertedLevel > .none {
                choices.append(
                    NightChoice(box: night.box, night: night.night, region: region, stratum: censusStratum, weight: 1, chosen: true))
            } else {
                strata["\(region)|\(night.night)" + (pass.isEmpty ? "" : "|\(pass)"), default: []].append((night, region))
            }
        }
        for (stratum, members) in strata.sorted(by: { $0.key < $1.key }) {
            // Each box hashed once, not at every comparison.
            let drawn = members.map { (rank: rank($0.night.box), member: $0) }
                .sorted { ($0.rank, $0.member.night.box.key) < ($1.rank, $1.member.night.box.key) }
                .map(\.member)
            let take = min(max(0, perStratum), drawn.count)
            let weight = take > 0 ? Double(drawn.count) / Double(take) : 0
            for (index, member) in drawn.enumerated() {
                choices.append(
                    NightChoice(
                        box: member.night.box, night: member.night.night, region: member.region, stratum: stratum,
                        weight: index < take ? weight : 0, chosen: index < take))
            }
        }
        return choices
    }

    /// A box's place in the draw, the same every night.
    static func rank(_ box: GeoBox) -> UInt64 {
        var generator = SplitMix64(seed: UInt64(bitPattern: box.key))
        return generator.next()
    }
}

/// A chosen night's observed low, or that the archive lacks part of it.
public struct NightObservation: Sendable, Hashable {
    public var box: GeoBox
    public var night: LocalDate
    /// °C; nil: the archive does not have the whole night (yet).
    public var observedMinimumC: Double?

    public init(box: GeoBox, night: LocalDate, observedMinimumC: Double?) {
        self.box = box
        self.night = night
        self.observedMinimumC = observedMinimumC
    }
}

/// How far the check has come: nights per state, and those not yet due or chosen.
public struct NightCheckCounts: Sendable, Hashable, Codable {
    public var pending: Int
    public var chosen: Int
    public var skipped: Int
    public var observed: Int
    public var unavailable: Int

    public init(pending: Int = 0, chosen: Int = 0, skipped: Int = 0, observed: Int = 0, unavailable: Int = 0) {
        self.pending = pending
        self.chosen = chosen
        self.skipped = skipped
        self.observed = observed
        self.unavailable = unavailable
    }

    /// Adds `count` nights in `state` (nil: pending).
    public mutating func add(state: NightCheckState?, count: Int) {
        switch state {
        case nil: pending += count
        case .chosen: chosen += count
        case .skipped: skipped += count
        case .observed: observed += count
        case .unavailable: unavailable += count
        }
    }
}

extension NightRecord {
    /// The night as scored once its observed low is known.
    public func verified(region: VerificationRegion, observedMinimumC: Double, weight: Double, stratum: String) -> VerifiedNight {
        VerifiedNight(
            night: verdict.night, region: region, alertedLevel: alertedLevel, forecastMinimumC: verdict.minimumC,
            probabilities: verdict.probabilities, lead: lead, observedMinimumC: observedMinimumC, weight: weight, stratum: stratum,
            box: verdict.box)
    }
}

extension VerificationRegion {
    /// The region `description` wrote (`FI`, `FI.18`, `??`).
    public init(text: String) {
        let parts = text.split(separator: ".", maxSplits: 1).map(String.init)
        self.init(countryCode: parts.first ?? "??", admin1Code: parts.count > 1 ? parts[1] : nil)
    }
}

/// Where the check reads due nights and keeps what it chose and observed (issue #48). Every
/// write is idempotent: a check cut short and run again chooses nothing twice and counts no
/// night twice.
public protocol NightCheckStore: NightRecordStore {
    /// Up to `limit` nights with no check state whose window ended before `endedBefore`, by box.
    func dueNights(endedBefore: Int64, limit: Int) async throws -> [DueNight]
    /// Keeps the choices, each only where its night has no check state yet.
    func keep(_ choices: [NightChoice]) async throws
    /// Up to `limit` chosen nights not yet observed and not asked since `askedBefore` (a night
    /// the archive did not have whole is asked again only later), oldest window first.
    func chosenNights(limit: Int, askedBefore: Int64) async throws -> [NightRecord]
    /// Keeps what was observed (only for chosen nights); a night without a whole observation
    /// stays chosen, stamped as asked at `now`, unless its window ended before
    /// `givingUpBefore`, when it becomes unavailable.
    func keep(_ observations: [NightObservation], at now: Int64, givingUpBefore: Int64) async throws
    /// The observed nights whose night is on or after `since` (nil: all), as scored.
    func verifiedNights(since: LocalDate?) async throws -> [VerifiedNight]
    /// Nights per check state.
    func nightCheckCounts() async throws -> NightCheckCounts
    /// Takes the check's lease for `owner` until `until` unless another owner holds it past
    /// `now`; true when `owner` holds it.
    func claimNightCheck(owner: String, at now: Int64, until: Int64) async throws -> Bool
    /// Gives the lease back (when `owner` holds it).
    func releaseNightCheck(owner: String) async throws
}

/// What one check of kept nights did (issue #48).
public struct NightCheckSummary: Sendable, Hashable {
    /// Due nights chosen for the archive, and those skipped (not drawn).
    public var chosen = 0
    public var skipped = 0
    /// Nights whose observed low is now kept, and those given up for good.
    public var observed = 0
    public var unavailable = 0
    /// Chosen nights the archive did not have whole yet (asked again next time).
    public var waiting = 0
    /// Archive requests that reached the source, and the weight they cost.
    public var requests = 0
    public var weight = 0.0
    /// Why the check stopped before every chosen night was asked for (budget, the source's
    /// failure); nil when it got through.
    public var stoppedBy: String?
    /// Another instance holds the check: this one did nothing.
    public var heldElsewhere = false

    public init() {}

    /// One line for the log.
    public var line: String {
        if heldElsewhere { return "night check: another instance is checking" }
        return "night check: chosen=\(chosen) skipped=\(skipped) observed=\(observed) unavailable=\(unavailable) waiting=\(waiting) "
            + "requests=\(requests) weight=\(weight)" + (stoppedBy.map { " stopped=\($0)" } ?? "")
    }
}

/// The check of kept nights against what happened, run by the notifier after a run's
/// delivery (issue #48).
public protocol NightChecking: Sendable {
    /// Chooses the nights now due, asks the archive for the chosen ones within the budget
    /// share, and keeps what it answered.
    func check(now: Int64) async throws -> NightCheckSummary
}

/// Where a box lies for scores per region: its country and first-level division.
public protocol RegionLocator: Sendable {
    /// The region of each box that has a place near it; boxes left out are `unknown`.
    func regions(of boxes: [GeoBox]) async throws -> [GeoBox: VerificationRegion]
}
