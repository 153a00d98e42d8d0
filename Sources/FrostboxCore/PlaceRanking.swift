/// How search results are ordered.
///
/// 1. Near a point, places within the query's radius come first; places beyond it only
///    complete a list that has fewer than `limit` nearby places.
///    Within the radius, a match on a name given no language, or marked colloquial or
///    historic (`PlaceNameKind.informal`, `.historic`), ranks below every other nearby match:
///    such names (`Heletti` for Skellefteå) are not what people type for a place near them.
/// 2. A query ending in a hyphen (`carmel-`): names going on with a hyphen there
///    (`Carmel-by-the-Sea`) before those going on with a space (`Carmel Valley`).
///    Then a place with a name form equal to the query (after folding) comes before places
///    that only match as a prefix. An alternate name of at most `shortFormBytes` folded
///    bytes (`SFT`, `LA`: codes and abbreviations) matches only when equal to the query.
/// 3. Within each, a match on a name the alternate names mark historic (and nothing better)
///    comes last.
/// 4. Then by score, highest first:
///
///        score = log10(1 + population) − 3 × log10(1 + distance_km / 5)   (within the radius)
///        score = log10(1 + population)                                    (beyond it, or no point)
///
///    less 1.5 when the match is on another alternate name (not the place's name, ASCII
///    name, or a current name in the query's language): a place found by another of its
///    names needs ~30 times the people to pass a place of that name (Austin, 931,830 people,
///    "Waterloo" among its alternate names, 5.97 − 1.5 = 4.47, after Waterloo, Ontario,
///    104,986 people, 5.02; Rome, by "roma", about 6.4 − 1.5 = 4.9, still before a town of a
///    few thousand named Roma). Every tenfold of population is worth as much as the
///    distance (plus 5 km) growing by a factor of 10^(1/3) ≈ 2.15. Helsinki (558,457
///    people, 15 km) scores 5.75 − 1.81 = 3.94; a 200-person village 3 km away scores
///    2.30 − 0.61 = 1.69. Beyond the radius only population counts: the distance is
///    reported, not weighed.
/// 5. Ties: larger population, then nearer, then lower geonameid.
public enum PlaceRanking {
    /// Kilometres at which the distance penalty starts to bite.
    public static let distanceScaleKilometres = 5.0
    /// Weight of the distance term against log10 population.
    public static let distanceWeight = 3.0
    /// What a match on another alternate name costs against the place's own name, in log10
    /// population.
    public static let alternateNamePenalty = 1.5
    /// Alternate names this short (folded UTF-8 bytes) match only when equal to the query.
    public static let shortFormBytes = 3

    /// What ranking compares, in order (see the type's comment).
    public struct Key {
        public var isNearby: Bool
        public var isExact: Bool
        public var nameKind: PlaceNameKind
        public var score: Double
        public var population: Int64
        public var distanceKilometres: Double?
        public var id: Int64
        /// False when the query ends in a hyphen and neither the place's name nor its ASCII
        /// name goes on with one there (`PlaceRanking.continuesAsTyped`).
        public var continuesAsTyped: Bool
        /// Whether the place's name or ASCII name starts with the query.
        public var ownNameIsPrefix: Bool

        public init(
            isNearby: Bool, isExact: Bool, nameKind: PlaceNameKind, score: Double, population: Int64,
            distanceKilometres: Double?, id: Int64, continuesAsTyped: Bool = true, ownNameIsPrefix: Bool = false
        ) {
            self.continuesAsTyped = continuesAsTyped
            self.ownNameIsPrefix = ownNameIsPrefix
            self.isNearby = isNearby
            self.isExact = isExact
            self.nameKind = nameKind
            self.score = score
            self.population = population
            self.distanceKilometres = distanceKilometres
            self.id = id
        }

        /// The score with the name kind's cost.
        var rankingScore: Double {
            nameKind == .alternate || nameKind == .informal ? score - PlaceRanking.alternateNamePenalty : score
        }

        /// Within the radius of a point (without a point every match counts as nearby, and
        /// no name kind is demoted for it).
        var isWithinRadius: Bool { isNearby && distanceKilometres != nil }

        /// What ranks: within the radius, an exact match on an informal or historic name of a
        /// place whose own name starts with the query ranks as that own-name prefix match
        /// (Helsinki, typed `hel`, by its name rather than by `HEL` in its column).
        public var ranked: Key {
            guard isWithinRadius && isExact && nameKind.isWeak && ownNameIsPrefix else { return self }
            var key = self
            key.isExact = false
            key.nameKind = .own
            return key
        }
    }

    /// Whether `a` ranks before `b`.
    public static func ranksBefore(_ a: Key, _ b: Key) -> Bool {
        ranksBeforeRanked(a.ranked, b.ranked)
    }

    /// `ranksBefore` on keys already `ranked`.
    public static func ranksBeforeRanked(_ a: Key, _ b: Key) -> Bool {
        if a.isNearby != b.isNearby { return a.isNearby }
        if a.isWithinRadius && b.isWithinRadius && a.nameKind.isWeak != b.nameKind.isWeak { return b.nameKind.isWeak }
        if a.continuesAsTyped != b.continuesAsTyped { return a.continuesAsTyped }
        if a.isExact != b.isExact { return a.isExact }
        if (a.nameKind == .historic) != (b.nameKind == .historic) { return b.nameKind == .historic }
        if a.rankingScore != b.rankingScore { return a.rankingScore > b.rankingScore }
        if a.population != b.population { return a.population > b.population }
        let da = a.distanceKilometres ?? 0
        let db = b.distanceKilometres ?? 0
        if da != db { return da < db }
        return a.id < b.id
    }

    /// The score of a place with `population` at `distanceKilometres` (nil: no point given,
    /// or the place lies beyond the radius).
    public static func score(population: Int64, distanceKilometres: Double?) -> Double {
        let people = Double(max(population, 0))
        var score = log10(1 + people)
        if let distance = distanceKilometres {
            score -= distanceWeight * log10(1 + max(distance, 0) / distanceScaleKilometres)
        }
        return score
    }

    /// The score of a place at `distanceKilometres` from the query point: the distance term
    /// counts within the radius only.
    public static func score(population: Int64, distanceKilometres: Double?, isNearby: Bool) -> Double {
        score(population: population, distanceKilometres: isNearby ? distanceKilometres : nil)
    }

    /// Whether `a` ranks before `b`.
    public static func ranksBefore(_ a: PlaceMatch, _ b: PlaceMatch) -> Bool {
        ranksBefore(a.rankingKey, b.rankingKey)
    }

    /// The best-matching written form of `place` for a folded query, and whether it is exact;
    /// nil when no form matches. Exact beats prefix; among equals the main name, then the
    /// ASCII name, then the shortest alternate (the one closest to what was typed).
    public static func bestMatch(of place: Place, foldedQuery: String) -> (name: String, isExact: Bool)? {
        var best: (name: String, isExact: Bool, order: Int, length: Int)?
        // The forms of `Place.foldedForms`, in its order; each compared by folding only as far
        // as the query reaches, and folded whole only when it matches (a large city has
        // hundreds of alternate names, and ten places are matched per search).
        let ownForms = place.asciiName.isEmpty ? 1 : 2
        var order = 0
        func consider(_ form: String) {
            defer { order += 1 }
            let comparison = NameFolding.compare(form, foldedQuery: foldedQuery)
            guard comparison.isPrefix else { return }
            let exact = comparison.isEqual
            let length = exact ? foldedQuery.utf8.count : NameFolding.fold(form).utf8.count
            let isAlternate = order >= ownForms
            if isAlternate && (!exact && length <= shortFormBytes || place.isCodeOnly(exact ? foldedQuery : NameFolding.fold(form))) {
                return
            }
            let rank = (exact: exact, order: min(order, 2), length: length)
            if let current = best {
                if current.isExact && !rank.exact { return }
                if current.isExact == rank.exact {
                    if current.order < rank.order { return }
                    if current.order == rank.order && current.length <= rank.length { return }
                }
            }
            best = (form, exact, rank.order, rank.length)
        }
        consider(place.name)
        if !place.asciiName.isEmpty { consider(place.asciiName) }
        for part in place.alternateNames.split(separator: ",") where !part.isEmpty { consider(String(part)) }
        for alternate in place.alternates where alternate.isName && !alternate.name.isEmpty { consider(alternate.name) }
        return best.map { ($0.name, $0.isExact) }
    }

    /// The best kind of name of `place` that matches the folded query in its match class
    /// (`exact`: equal; else starting with it). Own: the name, the ASCII name, or a current
    /// alternate name in one of `languages` (exact tag or same primary language). Historic:
    /// every matching form is one the alternate names table lists as historic only.
    /// Alternate: a current name in another language. Informal: a name in no language (the
    /// dump's column alone, an entry without one) or a colloquial one.
    public static func nameKind(of place: Place, foldedQuery: String, exact: Bool, languages: [String]) -> PlaceNameKind {
        func matches(_ form: String, alternate: Bool) -> Bool {
            let folded = NameFolding.fold(form)
            if exact { return folded == foldedQuery }
            return NameFolding.hasPrefix(folded, foldedQuery) && !(alternate && isShortForm(folded))
        }
        if matches(place.name, alternate: false) || (!place.asciiName.isEmpty && matches(place.asciiName, alternate: false)) {
            return .own
        }
        let primaries = languages.map { LanguageTag.primary(of: $0) }
        var inLanguage = false
        var informal = false
        var historic = false
        for alternate in place.alternates where alternate.isName && matches(alternate.name, alternate: true) {
            if alternate.isHistoric {
                historic = true
            } else if alternate.language.isEmpty || alternate.isColloquial {
                informal = true
            } else if primaries.contains(LanguageTag.primary(of: alternate.language)) {
                return .own
            } else {
                inLanguage = true
            }
        }
        if inLanguage { return .alternate }
        // A matching form of the dump's column that the table does not list has no language.
        let listed = Set(place.alternates.map { NameFolding.fold($0.name) })
        let unlisted = place.alternateNames.split(separator: ",").contains { form in
            matches(String(form), alternate: true) && !listed.contains(NameFolding.fold(form))
        }
        if informal || unlisted || !historic { return .informal }
        return .historic
    }

    /// Whether a folded alternate form is short enough to match only when equal to the query.
    public static func isShortForm(_ folded: String) -> Bool { folded.utf8.count <= shortFormBytes }

    /// Whether a place's name or ASCII name goes on as `hyphenated` (a query ending in a
    /// hyphen, folded by `NameFolding.foldKeepingHyphens`) does; true without such a query.
    public static func continuesAsTyped(name: String, asciiName: String, hyphenated: String?) -> Bool {
        guard let hyphenated else { return true }
        return NameFolding.hasHyphenatedPrefix(name, hyphenated) || NameFolding.hasHyphenatedPrefix(asciiName, hyphenated)
    }

    /// Ranks matches and keeps the best `limit`.
    public static func top(_ matches: [PlaceMatch], limit: Int) -> [PlaceMatch] {
        top(matches, limit: limit, key: \.rankingKey)
    }

    /// The best `limit` of `items` in rank order, the same as sorting them all by `key` and
    /// keeping the first `limit`, in one pass: each item's key is made once and compared
    /// with the best so far (a search ranks a few hundred candidates for ten places, several
    /// times while it settles name kinds; sorting them all each time was a third of its CPU).
    public static func top<Item>(_ items: some Sequence<Item>, limit: Int, key: (Item) -> Key) -> [Item] {
        guard limit > 0 else { return [] }
        var best: [(key: Key, item: Item)] = []
        best.reserveCapacity(limit + 1)
        for item in items {
            let itemKey = key(item).ranked
            if best.count == limit, let last = best.last, !ranksBeforeRanked(itemKey, last.key) { continue }
            best.insert((itemKey, item), at: insertionIndex(of: itemKey, in: best, key: \.key))
            if best.count > limit { best.removeLast() }
        }
        return best.map(\.item)
    }

    /// Where a `ranked` key goes in `ordered` (in rank order by `key`, also `ranked`): after
    /// every element that ranks before it; a binary search.
    public static func insertionIndex<Element>(of ranked: Key, in ordered: [Element], key: (Element) -> Key) -> Int {
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if ranksBeforeRanked(key(ordered[middle]), ranked) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

@inline(__always) func log10(_ x: Double) -> Double { naturalLog(x) / 2.302585092994046 }

extension PlaceMatch {
    /// What `PlaceRanking` compares.
    public var rankingKey: PlaceRanking.Key {
        PlaceRanking.Key(
            isNearby: isNearby, isExact: isExact, nameKind: nameKind, score: score, population: place.population,
            distanceKilometres: distanceKilometres, id: place.id, continuesAsTyped: continuesAsTyped,
            ownNameIsPrefix: ownNameIsPrefix)
    }
}

extension PlaceNameKind {
    /// Informal and historic names: within the radius they rank below every other kind.
    public var isWeak: Bool { self == .informal || self == .historic }
}
