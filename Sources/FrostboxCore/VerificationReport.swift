/// The scores of checked nights overall and by group (issue #48): per country and
/// first-level division, per lead of the first alert, per month of the night.
public struct VerificationReport: Sendable {
    /// One group's scores.
    public struct Group: Sendable, Hashable {
        /// `FI`, `FI.18`, `same-night`, `2026-11`.
        public var key: String
        public var scores: VerificationScores
    }

    public var overall: VerificationScores
    public var countries: [Group]
    public var regions: [Group]
    /// Alerted nights only, by when their first alert went out: a miss has no lead, so these
    /// groups carry hits and false alarms (and FAR) but no POD, CSI or bias.
    public var leads: [Group]
    public var months: [Group]

    public init(_ nights: [VerifiedNight], thresholds: FrostThresholds) {
        overall = VerificationScores(nights, thresholds: thresholds)
        func groups(_ key: (VerifiedNight) -> String?) -> [Group] {
            Dictionary(grouping: nights.compactMap { night in key(night).map { ($0, night) } }, by: \.0)
                .map { Group(key: $0.key, scores: VerificationScores($0.value.map(\.1), thresholds: thresholds)) }
                .sorted { $0.key < $1.key }
        }
        countries = groups { $0.region.country.description }
        regions = groups { $0.region.admin1Code == nil ? nil : $0.region.description }
        leads = groups { $0.lead?.rawValue }.map { group in
            var group = group
            group.scores.levels = group.scores.levels.map { level in
                var level = level
                level.pod = nil
                level.csi = nil
                level.bias = nil
                return level
            }
            return group
        }
        months = groups { "\($0.night.year)-\($0.night.month < 10 ? "0" : "")\($0.night.month)" }
    }
}
