import FrostboxCore
import Testing

@Suite("Place ranking and queries")
struct PlaceRankingTests {
    static let vuosaari = Coordinate(uncheckedLatitude: 60.21, longitude: 25.14)

    static func place(_ id: Int64, _ name: String, _ lat: Double, _ lon: Double, population: Int64, alternates: String = "") -> Place {
        Place(
            id: id, name: name, asciiName: NameFolding.fold(name), alternateNames: alternates,
            coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), population: population)
    }

    static func match(_ place: Place, query: String, near: Coordinate? = vuosaari) -> PlaceMatch {
        let best = PlaceRanking.bestMatch(of: place, foldedQuery: NameFolding.fold(query))!
        let distance = near.map { $0.distanceKilometres(to: place.coordinate) }
        return PlaceMatch(
            place: place, matchedName: best.name, isExact: best.isExact, distanceKilometres: distance,
            score: PlaceRanking.score(population: place.population, distanceKilometres: distance))
    }

    @Test("for 'hel' near Vuosaari, Helsinki (558k, ~15 km) ranks above a 200-person village 3 km away")
    func helsinkiAboveVillage() {
        let helsinki = Self.place(658225, "Helsinki", 60.16952, 24.93545, population: 558_457)
        let village = Self.place(1, "Helgeby", 60.225, 25.19, population: 200)
        #expect((12...16).contains(Self.vuosaari.distanceKilometres(to: helsinki.coordinate)))
        #expect((2...4).contains(Self.vuosaari.distanceKilometres(to: village.coordinate)))
        let ranked = PlaceRanking.top([Self.match(village, query: "hel"), Self.match(helsinki, query: "hel")], limit: 10)
        #expect(ranked.map(\.place.name) == ["Helsinki", "Helgeby"])
    }

    @Test("an exact name match ranks above any prefix match, however large")
    func exactAbovePrefix() {
        let hel = Self.place(2, "Hel", 54.6, 18.8, population: 3_000)
        let helsinki = Self.place(658225, "Helsinki", 60.16952, 24.93545, population: 558_457)
        let ranked = PlaceRanking.top([Self.match(helsinki, query: "hel"), Self.match(hel, query: "hel")], limit: 10)
        #expect(ranked.map(\.place.name) == ["Hel", "Helsinki"])
        #expect(ranked[0].isExact && !ranked[1].isExact)
    }

    @Test("nearer wins between equal populations; larger wins at equal distance; the score is monotonic")
    func monotonic() {
        #expect(PlaceRanking.score(population: 1000, distanceKilometres: 1) > PlaceRanking.score(population: 1000, distanceKilometres: 10))
        #expect(PlaceRanking.score(population: 10_000, distanceKilometres: 5) > PlaceRanking.score(population: 1000, distanceKilometres: 5))
        #expect(PlaceRanking.score(population: 0, distanceKilometres: nil) == 0)
        // Worldwide: population only.
        #expect(abs(PlaceRanking.score(population: 1_000_000, distanceKilometres: nil) - 6) < 1e-5)
    }

    @Test("a far small village does not beat a near one of the same size")
    func nearVillage() {
        let near = Self.place(3, "Helmi", 60.22, 25.15, population: 150)
        let far = Self.place(4, "Helmikylä", 61.5, 25.5, population: 150)
        let ranked = PlaceRanking.top([Self.match(far, query: "helm"), Self.match(near, query: "helm")], limit: 1)
        #expect(ranked.map(\.place.id) == [3])
    }

    @Test("ties break by population, distance, then geonameid, and limit cuts the list")
    func ties() {
        let a = Self.place(10, "Aa", 60.21, 25.14, population: 0)
        let b = Self.place(11, "Ab", 60.21, 25.14, population: 0)
        let c = Self.place(9, "Ac", 60.21, 25.14, population: 0)
        let ranked = PlaceRanking.top([a, b, c].map { Self.match($0, query: "a") }, limit: 2)
        #expect(ranked.map(\.place.id) == [9, 10])
    }

    @Test("best matching form: exact before prefix, main name before ASCII before the shortest alternate")
    func bestMatch() {
        let helsinki = Self.place(658225, "Helsinki", 60.17, 24.94, population: 558_457, alternates: "HEL,Helsingfors,Helsinkis,Хельсинки")
        #expect(PlaceRanking.bestMatch(of: helsinki, foldedQuery: "hel")! == ("HEL", true))
        #expect(PlaceRanking.bestMatch(of: helsinki, foldedQuery: "hels")! == ("Helsinki", false))
        #expect(PlaceRanking.bestMatch(of: helsinki, foldedQuery: "helsingf")! == ("Helsingfors", false))
        #expect(PlaceRanking.bestMatch(of: helsinki, foldedQuery: "хель")! == ("Хельсинки", false))
        #expect(PlaceRanking.bestMatch(of: helsinki, foldedQuery: "turku") == nil)
        let zurich = Place(id: 5, name: "Zürich", asciiName: "Zurich", alternateNames: "Zuerich,Zurigo", coordinate: Self.vuosaari)
        #expect(PlaceRanking.bestMatch(of: zurich, foldedQuery: "zurich")! == ("Zürich", true))
        #expect(PlaceRanking.bestMatch(of: zurich, foldedQuery: "zu")! == ("Zürich", false))
    }

    @Test(
        "queries are validated",
        arguments: [
            ("", 10, 200.0, "q"), ("   ", 10, 200.0, "q"), ("...", 10, 200.0, "q"),
            (String(repeating: "a", count: 101), 10, 200.0, "q"), ("a" + String(repeating: "\u{301}", count: 10_000), 10, 200.0, "q"),
            ("hel", 0, 200.0, "limit"), ("hel", 51, 200.0, "limit"),
            ("hel", 10, 0.0, "radius_km"), ("hel", 10, 5000.0, "radius_km"), ("hel", 10, Double.nan, "radius_km"),
        ])
    func invalidQueries(text: String, limit: Int, radius: Double, field: String) {
        #expect(throws: ValidationError.self) { try PlaceQuery(text: text, limit: limit, radiusKilometres: radius) }
        do {
            _ = try PlaceQuery(text: text, limit: limit, radiusKilometres: radius)
        } catch {
            #expect(error.field == field)
        }
    }

    @Test("valid queries keep the typed text and fold it")
    func validQuery() throws {
        let query = try PlaceQuery(text: "  Sao P ", near: Self.vuosaari, limit: 50, radiusKilometres: 1)
        #expect(query.text == "Sao P")
        #expect(query.folded == "sao p")
        #expect(try PlaceQuery(text: String(repeating: "ä", count: 100)).folded.count == 100)
    }

    @Test("the best `limit` of many keys, in one pass, are the first `limit` of a full sort (ties, every kind, with and without a point)")
    func topEqualsSortedPrefix() {
        var random = SplitMix64(seed: 49)
        for round in 0..<200 {
            let count = Int.random(in: 0...300, using: &random)
            // A search has a point (every candidate has a distance) or none (no candidate has).
            let hasPoint = Bool.random(using: &random)
            let keys = (0..<count).map { index in
                let isNearby = !hasPoint || Bool.random(using: &random)
                return PlaceRanking.Key(
                    isNearby: isNearby, isExact: Int.random(in: 0..<4, using: &random) == 0,
                    nameKind: PlaceNameKind(rawValue: Int.random(in: 0...3, using: &random))!,
                    // Few distinct scores and populations, so that ties reach the later rules.
                    score: Double(Int.random(in: 0...5, using: &random)), population: Int64.random(in: 0...3, using: &random),
                    distanceKilometres: hasPoint ? Double(Int.random(in: 0...3, using: &random)) : nil,
                    id: Int64(index), continuesAsTyped: Int.random(in: 0..<5, using: &random) > 0,
                    ownNameIsPrefix: Bool.random(using: &random))
            }
            for limit in [0, 1, 10, count + 1] {
                let expected = keys.sorted { PlaceRanking.ranksBefore($0, $1) }.prefix(limit).map(\.id)
                #expect(PlaceRanking.top(keys, limit: limit, key: { $0 }).map(\.id) == expected, "round \(round), limit \(limit)")
            }
        }
    }

    /// `bestMatch` as it was first written: every form folded whole.
    static func bestMatchFoldingEverything(of place: Place, foldedQuery: String) -> (name: String, isExact: Bool)? {
        var best: (name: String, isExact: Bool, order: Int, length: Int)?
        for (order, form) in place.nameForms.enumerated() {
            let folded = NameFolding.fold(form)
            guard NameFolding.hasPrefix(folded, foldedQuery) else { continue }
            let exact = folded.utf8.count == foldedQuery.utf8.count
            if order >= (place.asciiName.isEmpty ? 1 : 2) && !exact && PlaceRanking.isShortForm(folded) { continue }
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

    @Test("the best match, folding only the forms that match, is the one found by folding every form (codes, short forms, accents)")
    func bestMatchFoldsOnlyWhatMatches() {
        var random = SplitMix64(seed: 34)
        let pieces = ["Hel", "hel", "Hél", "sinki", "Ö", "stra", "-", " ", "HEL", "Ab", "å", "ss", "ß", "St. ", "x", "EFHK"]
        func name() -> String { (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        let languages = ["", "fi", "sv", "iata", "icao", "post", "en", "link"]
        for id in 0..<2_000 {
            let alternates = (0..<Int.random(in: 0...4, using: &random)).map { index in
                AlternateName(id: Int64(index), placeID: Int64(id), language: languages.randomElement(using: &random)!, name: name())
            }
            let place = Place(
                id: Int64(id), name: name(), asciiName: Bool.random(using: &random) ? name() : "",
                alternateNames: (0..<Int.random(in: 0...4, using: &random)).map { _ in name() }.joined(separator: ","),
                coordinate: Self.vuosaari, alternates: alternates)
            for query in ["h", "he", "hel", "hels", "helsinki", "o", "os", "a", "ab", "efhk", "st", "st ", "s"] {
                let found = PlaceRanking.bestMatch(of: place, foldedQuery: query)
                let expected = Self.bestMatchFoldingEverything(of: place, foldedQuery: query)
                #expect(found?.name == expected?.name && found?.isExact == expected?.isExact, "place \(id) \(place), query \(query)")
            }
        }
    }
}
