import Foundation

/// The scores of checked nights overall and by group (issue #48): per country and
/// first-level division, per lead of the first alert, per month of the night.
public struct VerificationReport: Sendable {
    /// One group's scores.
    public struct Group: Sendable, Hashable {
        /// `FI`, `FI.18`, `same-night`, `2026-11`.
        public var key: String
        public var scores: VerificationScores
        /// Where the group lies on a map, for regions and countries: the mean centre of its
        /// checked boxes (longitude as a circular mean, so a group across 180° stays on it);
        /// nil for other groups and when no night carries its box.
        public var latitude: Double?
        public var longitude: Double?

        public init(key: String, scores: VerificationScores, latitude: Double? = nil, longitude: Double? = nil) {
            self.key = key
            self.scores = scores
            self.latitude = latitude
            self.longitude = longitude
        }
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
        countries = Self.placed(groups { $0.region.country.description }, nights) { $0.region.country.description }
        regions = Self.placed(groups { $0.region.admin1Code == nil ? nil : $0.region.description }, nights) { $0.region.description }
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

    /// `groups` with the mean centre of each one's distinct boxes (grouped by `key`).
    static func placed(_ groups: [Group], _ nights: [VerifiedNight], key: (VerifiedNight) -> String) -> [Group] {
        var boxes: [String: Set<GeoBox>] = [:]
        for night in nights {
            if let box = night.box { boxes[key(night), default: []].insert(box) }
        }
        return groups.map { group in
            var group = group
            if let centre = boxes[group.key].flatMap(meanCentre) {
                group.latitude = centre.latitude
                group.longitude = centre.longitude
            }
            return group
        }
    }

    /// The mean latitude and the circular mean longitude of the boxes' centres; nil for no box.
    static func meanCentre(of set: Set<GeoBox>) -> (latitude: Double, longitude: Double)? {
        guard !set.isEmpty else { return nil }
        // In key order, so that the sums (and their last bits) are the same on every call.
        let boxes = set.sorted()
        let count = Double(boxes.count)
        let latitude = boxes.reduce(0) { $0 + $1.latitude } / count
        let radians = Double.pi / 180
        let sine = boxes.reduce(0) { $0 + sin($1.longitude * radians) }
        let cosine = boxes.reduce(0) { $0 + cos($1.longitude * radians) }
        // Boxes spread evenly round the globe have no mean direction: their plain mean stands in.
        var longitude = abs(sine) + abs(cosine) < 1e-9 ? boxes.reduce(0) { $0 + $1.longitude } / count : atan2(sine, cosine) / radians
        if longitude <= -180 { longitude += 360 }
        return (latitude, longitude)
    }
}
