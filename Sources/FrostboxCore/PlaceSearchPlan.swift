/// How a query's text is read: the whole text as a name, and "name region" or "region name"
/// when some of its last or first words name a region (`rochester ny`, `liverpool, england`,
/// `ny rochester`). Every `PlaceIndex` answers through it, so all follow the same rules.
///
/// Answer order: places whose name equals the whole text, then places in a named region whose
/// name equals the rest, then prefix matches of the whole text, then prefix matches in a
/// region; each part ranked by `PlaceRanking`, each place once. When nothing matches, a
/// region word that names nothing falls back to the name before it (`rochester xy` answers
/// as `rochester`).
public enum PlaceSearchPlan {
    /// One reading of a query: a folded name to match, and the regions the place must lie in
    /// (empty: anywhere).
    public struct Reading: Sendable, Hashable {
        public let folded: String
        public let regions: Set<PlaceRegion>

        public init(folded: String, regions: Set<PlaceRegion> = []) {
            self.folded = folded
            self.regions = regions
        }

        /// Whether a place with these codes may answer this reading.
        public func admits(countryCode: String, admin1Code: String) -> Bool {
            regions.isEmpty || regions.contains { $0.contains(countryCode: countryCode, admin1Code: admin1Code) }
        }
    }

    /// Most readings without a region tried when nothing matched (one per dropped word).
    static let maximumFallbacks = RegionCatalog.maximumWords

    /// The query's answer: `search` answers one reading (ranked, at most `query.limit`);
    /// `catalog` is asked for only when the text has more than one word.
    public static func results(
        for query: PlaceQuery, catalog: () throws -> RegionCatalog, search: (Reading) throws -> [PlaceMatch]
    ) rethrows -> [PlaceMatch] {
        let whole = try search(Reading(folded: query.folded))
        let words = query.folded.split(separator: " ")
        guard words.count > 1 else { return whole }
        let regional = try regionReadings(words, catalog: try catalog()).flatMap { try search($0) }
            .sorted(by: PlaceRanking.ranksBefore)
        var answer: [PlaceMatch] = []
        var seen = Set<Int64>()
        let parts = [whole.filter(\.isExact), regional.filter(\.isExact), whole.filter { !$0.isExact }, regional.filter { !$0.isExact }]
        for match in parts.joined() where answer.count < query.limit && seen.insert(match.place.id).inserted {
            answer.append(match)
        }
        guard answer.isEmpty else { return answer }
        for dropped in 1...min(maximumFallbacks, words.count - 1) {
            let fallback = try search(Reading(folded: words.dropLast(dropped).joined(separator: " ")))
            if !fallback.isEmpty { return fallback }
        }
        return []
    }

    /// The "name region" readings of a query's words: the last 1–3 words as a region and the
    /// rest as the name, then the first 1–3 words as a region and the rest as the name, each
    /// kept when the catalog knows the region.
    public static func regionReadings(_ words: [Substring], catalog: RegionCatalog) -> [Reading] {
        guard words.count > 1, !catalog.isEmpty else { return [] }
        var readings: [Reading] = []
        for length in 1...min(RegionCatalog.maximumWords, words.count - 1) {
            let trailing = catalog.regions(named: words.suffix(length).joined(separator: " "))
            if !trailing.isEmpty {
                readings.append(Reading(folded: words.dropLast(length).joined(separator: " "), regions: trailing))
            }
            let leading = catalog.regions(named: words.prefix(length).joined(separator: " "))
            if !leading.isEmpty {
                readings.append(Reading(folded: words.dropFirst(length).joined(separator: " "), regions: leading))
            }
        }
        return readings
    }
}
