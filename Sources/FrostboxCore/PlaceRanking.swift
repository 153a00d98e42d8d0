/// How search results are ordered.
///
/// 1. A place with a name form equal to the query (after folding) comes before places that
///    only match as a prefix.
/// 2. Then by score, highest first:
///
///        score = log10(1 + population) − 3 × log10(1 + distance_km / 5)
///
///    Every tenfold of population is worth as much as the distance (plus 5 km) growing by
///    a factor of 10^(1/3) ≈ 2.15. Helsinki (558,457 people, 15 km) scores 5.75 − 1.81 =
///    3.94; a 200-person village 3 km away scores 2.30 − 0.61 = 1.69. Without a point the
///    distance term is 0: worldwide by population.
/// 3. Ties: larger population, then nearer, then lower geonameid.
public enum PlaceRanking {
    /// Kilometres at which the distance penalty starts to bite.
    public static let distanceScaleKilometres = 5.0
    /// Weight of the distance term against log10 population.
    public static let distanceWeight = 3.0

    /// The score of a place with `population` at `distanceKilometres` (nil: no point given).
    public static func score(population: Int64, distanceKilometres: Double?) -> Double {
        let people = Double(max(population, 0))
        var score = log10(1 + people)
        if let distance = distanceKilometres {
            score -= distanceWeight * log10(1 + max(distance, 0) / distanceScaleKilometres)
        }
        return score
    }

    /// Whether `a` ranks before `b`.
    public static func ranksBefore(_ a: PlaceMatch, _ b: PlaceMatch) -> Bool {
        if a.isExact != b.isExact { return a.isExact }
        if a.score != b.score { return a.score > b.score }
        if a.place.population != b.place.population { return a.place.population > b.place.population }
        let da = a.distanceKilometres ?? 0
        let db = b.distanceKilometres ?? 0
        if da != db { return da < db }
        return a.place.id < b.place.id
    }

    /// The best-matching written form of `place` for a folded query, and whether it is exact;
    /// nil when no form matches. Exact beats prefix; among equals the main name, then the
    /// ASCII name, then the shortest alternate (the one closest to what was typed).
    public static func bestMatch(of place: Place, foldedQuery: String) -> (name: String, isExact: Bool)? {
        var best: (name: String, isExact: Bool, order: Int, length: Int)?
        for (order, (form, folded)) in place.foldedForms.enumerated() {
            guard NameFolding.hasPrefix(folded, foldedQuery) else { continue }
            let exact = folded.utf8.count == foldedQuery.utf8.count
            let rank = (exact: exact, order: min(order, 2), length: folded.utf8.count)
            if let current = best {
                if current.isExact && !rank.exact { continue }
                if current.isExact == rank.exact {
                    if current.order < rank.order { continue }
                    if current.order == rank.order && current.length <= rank.length { continue }
                }
            }
            best = (form, exact, rank.order, rank.length)
        }
        return best.map { ($0.name, $0.isExact) }
    }

    /// Ranks candidates and keeps the best `limit`.
    public static func top(_ matches: [PlaceMatch], limit: Int) -> [PlaceMatch] {
        Array(matches.sorted(by: ranksBefore).prefix(limit))
    }
}

@inline(__always) func log10(_ x: Double) -> Double { naturalLog(x) / 2.302585092994046 }
