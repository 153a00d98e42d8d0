import FrostboxCore
import Testing

@Suite("Place search: readings, regions, name kinds")
struct PlaceSearchPlanTests {
    static let catalog = RegionCatalog(
        admin1: [
            Admin1Division(code: "US.NY", name: "New York", asciiName: "New York", geonameID: 5_128_638),
            Admin1Division(code: "US.IN", name: "Indiana", asciiName: "Indiana", geonameID: 4_921_868),
            Admin1Division(code: "SE.27", name: "Skåne", asciiName: "Skane", geonameID: 3_337_385),
            Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830_709),
        ],
        countries: [CountryInfo(code: "IN", name: "India"), CountryInfo(code: "GB", name: "United Kingdom")],
        alternates: [
            AlternateName(id: 1, placeID: 3_337_385, language: "en", name: "Scania"),
            AlternateName(id: 2, placeID: 3_337_385, language: "la", name: "Scandia", isHistoric: true),
            AlternateName(id: 3, placeID: 999, language: "en", name: "Elsewhere"),
        ])

    @Test("region names: division names folded, alphabetic codes only, countries by name and code, UK for GB, current alternates of the division")
    func catalogNames() {
        let catalog = Self.catalog
        #expect(catalog.regions(named: "ny") == [PlaceRegion(countryCode: "US", admin1Code: "NY")])
        #expect(catalog.regions(named: "new york") == [PlaceRegion(countryCode: "US", admin1Code: "NY")])
        #expect(catalog.regions(named: "skane") == [PlaceRegion(countryCode: "SE", admin1Code: "27")])
        #expect(catalog.regions(named: "scania") == [PlaceRegion(countryCode: "SE", admin1Code: "27")])
        #expect(catalog.regions(named: "scandia").isEmpty, "historic names of a division are not its names")
        #expect(catalog.regions(named: "elsewhere").isEmpty, "alternates of other places are not region names")
        #expect(catalog.regions(named: "01").isEmpty, "numeric division codes are not typed as regions")
        #expect(catalog.regions(named: "in") == [PlaceRegion(countryCode: "US", admin1Code: "IN"), PlaceRegion(countryCode: "IN")])
        #expect(catalog.regions(named: "uk") == [PlaceRegion(countryCode: "GB")])
        #expect(catalog.regions(named: "united kingdom") == [PlaceRegion(countryCode: "GB")])
        #expect(RegionCatalog.empty.isEmpty)
    }

    @Test("readings: the last or first 1–3 words as a known region, the rest as the name")
    func readings() {
        let words = { (text: String) in NameFolding.fold(text).split(separator: " ") }
        let newYork: Set = [PlaceRegion(countryCode: "US", admin1Code: "NY")]
        #expect(
            PlaceSearchPlan.regionReadings(words("Rochester, NY"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "rochester", regions: newYork)])
        #expect(
            PlaceSearchPlan.regionReadings(words("new york rochester"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "rochester", regions: newYork)])
        #expect(
            PlaceSearchPlan.regionReadings(words("east rochester new york"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "east rochester", regions: newYork)])
        #expect(PlaceSearchPlan.regionReadings(words("rochester"), catalog: Self.catalog).isEmpty)
        #expect(PlaceSearchPlan.regionReadings(words("ny"), catalog: Self.catalog).isEmpty, "a region alone is a name")
        #expect(PlaceSearchPlan.regionReadings(words("rochester xy"), catalog: Self.catalog).isEmpty)
        #expect(PlaceSearchPlan.regionReadings(words("rochester ny"), catalog: .empty).isEmpty)
    }

    @Test("a trailing hyphen keeps one trailing space in a query; names never keep one")
    func trailingHyphen() throws {
        #expect(try PlaceQuery(text: "carmel-").folded == "carmel ")
        #expect(try PlaceQuery(text: "Carmel – ").folded == "carmel ")
        #expect(try PlaceQuery(text: "carmel").folded == "carmel")
        #expect(try PlaceQuery(text: "carmel,").folded == "carmel")
        #expect(NameFolding.fold("Carmel-") == "carmel")
        #expect(throws: ValidationError.self) { try PlaceQuery(text: "-") }
    }

    static func place(alternates: [AlternateName], column: String = "") -> Place {
        Place(
            id: 3_143_244, name: "Oslo", asciiName: "Oslo", alternateNames: column,
            coordinate: Coordinate(uncheckedLatitude: 59.91, longitude: 10.75), alternates: alternates)
    }

    @Test("name kinds: own name or ASCII name, a current name in the query's language, other alternates, historic only")
    func nameKinds() {
        let oslo = Self.place(
            alternates: [
                AlternateName(id: 1, placeID: 3_143_244, language: "no", name: "Kristiania", isHistoric: true),
                AlternateName(id: 2, placeID: 3_143_244, language: "la", name: "Osloa"),
                AlternateName(id: 3, placeID: 3_143_244, language: "iata", name: "OSL"),
            ],
            column: "Kristiania,Christiania,Osloa,OSL")
        let kind = { (query: String, exact: Bool, languages: [String]) in
            PlaceRanking.nameKind(of: oslo, foldedQuery: query, exact: exact, languages: languages)
        }
        #expect(kind("oslo", true, []) == .own)
        #expect(kind("osl", false, []) == .own)
        #expect(kind("osloa", true, []) == .alternate)
        #expect(kind("osloa", true, ["la"]) == .own)
        #expect(kind("osloa", true, ["la-VA"]) == .own, "the same primary language")
        #expect(kind("kristiania", true, []) == .historic)
        #expect(kind("kristiania", true, ["no"]) == .historic, "a historic name is never the place's own")
        #expect(kind("christiania", true, []) == .informal, "the dump's column alone carries no language")
        #expect(kind("kris", false, []) == .historic)
    }

    @Test("name kinds: a table entry without a language, or colloquial, is informal; short alternate forms match only whole")
    func informalKinds() {
        let skelleftea = Place(
            id: 602_913, name: "Skellefteå", asciiName: "Skelleftea", alternateNames: "Heletti,SFT,Skelleftea",
            coordinate: Coordinate(uncheckedLatitude: 64.75, longitude: 20.95),
            alternates: [
                AlternateName(id: 1, placeID: 602_913, language: "", name: "Heletti"),
                AlternateName(id: 2, placeID: 602_913, language: "sv", name: "Skellis", isColloquial: true),
                AlternateName(id: 3, placeID: 602_913, language: "fi", name: "Seletti"),
            ])
        let kind = { (query: String, exact: Bool) in
            PlaceRanking.nameKind(of: skelleftea, foldedQuery: query, exact: exact, languages: [])
        }
        #expect(kind("hel", false) == .informal)
        #expect(kind("skellis", true) == .informal)
        #expect(kind("sel", false) == .alternate)
        #expect(kind("sk", false) == .own)
        #expect(PlaceRanking.bestMatch(of: skelleftea, foldedQuery: "sf") == nil, "SFT matches only whole")
        #expect(PlaceRanking.bestMatch(of: skelleftea, foldedQuery: "sft")?.isExact == true)
    }

    @Test("a query ending in a hyphen: its hyphenated form, and which names go on as typed")
    func hyphenated() throws {
        #expect(try PlaceQuery(text: "Carmel-").hyphenated == "carmel-")
        #expect(try PlaceQuery(text: "carmel –").hyphenated == "carmel-")
        #expect(try PlaceQuery(text: "carmel").hyphenated == nil)
        #expect(PlaceRanking.continuesAsTyped(name: "Carmel-by-the-Sea", asciiName: "Carmel-by-the-Sea", hyphenated: "carmel-"))
        #expect(!PlaceRanking.continuesAsTyped(name: "Carmel Valley Village", asciiName: "Carmel Valley Village", hyphenated: "carmel-"))
        #expect(PlaceRanking.continuesAsTyped(name: "Carmel Valley Village", asciiName: "", hyphenated: nil))
    }

    @Test("ranking: nearby before the completion, then exact, then historic last, then score less the alternate-name cost")
    func rankingOrder() {
        let place = Place(id: 1, name: "A", coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0), population: 10)
        func match(exact: Bool, kind: PlaceNameKind, nearby: Bool, score: Double, id: Int64) -> PlaceMatch {
            var copy = place
            copy.id = id
            return PlaceMatch(
                place: copy, matchedName: "A", isExact: exact, nameKind: kind, distanceKilometres: 1, isNearby: nearby, score: score)
        }
        let matches = [
            match(exact: true, kind: .own, nearby: false, score: 9, id: 1),
            match(exact: false, kind: .own, nearby: true, score: 1, id: 2),
            match(exact: true, kind: .historic, nearby: true, score: 9, id: 3),
            match(exact: true, kind: .alternate, nearby: true, score: 2.4, id: 4),
            match(exact: true, kind: .own, nearby: true, score: 1, id: 5),
            match(exact: true, kind: .own, nearby: true, score: 3, id: 6),
            match(exact: true, kind: .alternate, nearby: true, score: 2.6, id: 7),
        ]
        // 7 and 4 are alternate names: 2.6 − 1.5 = 1.1 passes 5's own 1; 2.4 − 1.5 = 0.9 does not.
        // 3's historic name ranks below every other match within the radius, 2's prefix too.
        #expect(PlaceRanking.top(matches, limit: 10).map(\.place.id) == [6, 7, 5, 4, 2, 3, 1])
        // Without a point (no distance) the historic exact match keeps its place before prefixes.
        let worldwide = matches.map { match in
            var copy = match
            copy.distanceKilometres = nil
            return copy
        }
        #expect(PlaceRanking.top(worldwide, limit: 10).map(\.place.id) == [6, 7, 5, 4, 3, 2, 1])
    }
}

@Suite("Place search: region names people type")
struct RegionNamesTests {
    static let catalog = RegionCatalog(
        admin1: [
            Admin1Division(code: "CA.08", name: "Ontario", asciiName: "Ontario", geonameID: 6_093_943),
            Admin1Division(code: "CA.02", name: "British Columbia", asciiName: "British Columbia", geonameID: 5_909_050),
            Admin1Division(code: "CA.10", name: "Quebec", asciiName: "Quebec", geonameID: 6_115_047),
            Admin1Division(code: "AU.02", name: "New South Wales", asciiName: "New South Wales", geonameID: 2_155_400),
            Admin1Division(code: "AU.07", name: "Victoria", asciiName: "Victoria", geonameID: 2_145_234),
            Admin1Division(code: "AU.04", name: "Queensland", asciiName: "Queensland", geonameID: 2_152_274),
            Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830_709),
        ],
        countries: [CountryInfo(code: "DE", name: "Germany", geonameID: 2_921_044), CountryInfo(code: "HR", name: "Croatia")],
        alternates: [
            AlternateName(id: 1, placeID: 2_921_044, language: "hr", name: "Njemačka"),
            AlternateName(id: 2, placeID: 2_921_044, language: "de", name: "Deutsches Reich", isHistoric: true),
            AlternateName(id: 3, placeID: 2_921_044, language: "iata", name: "GER"),
        ])

    @Test(
        "Canadian and Australian divisions by their ISO 3166-2 codes (GeoNames codes them by number)",
        arguments: [
            ("on", "CA", "08"), ("ON", "CA", "08"), ("bc", "CA", "02"), ("qc", "CA", "10"), ("nsw", "AU", "02"), ("vic", "AU", "07"),
            ("qld", "AU", "04"),
        ])
    func subdivisionCodes(typed: String, country: String, admin1: String) {
        #expect(Self.catalog.regions(named: NameFolding.fold(typed)) == [PlaceRegion(countryCode: country, admin1Code: admin1)])
    }

    @Test("a numeric division code without an ISO 3166-2 entry is still not a region")
    func numericCodes() {
        #expect(Self.catalog.regions(named: "08").isEmpty)
        #expect(Self.catalog.regions(named: "01").isEmpty)
    }

    @Test(
        "country names in other languages: shipped ones, and current names of the country's own row",
        arguments: [("deutschland", "DE"), ("suomi", "FI"), ("sverige", "SE"), ("norge", "NO"), ("eesti", "EE"), ("njemacka", "DE")])
    func countryNames(typed: String, country: String) {
        #expect(Self.catalog.regions(named: typed) == [PlaceRegion(countryCode: country)])
    }

    @Test("historic names and codes of a country's row are not its names; shipped names need no countryInfo")
    func countryNamesNot() {
        #expect(Self.catalog.regions(named: "deutsches reich").isEmpty)
        #expect(Self.catalog.regions(named: "ger").isEmpty)
        let bare = RegionCatalog(admin1: [], countries: [])
        #expect(bare.regions(named: "sverige") == [PlaceRegion(countryCode: "SE")])
        #expect(bare.regions(named: "sweden") == [PlaceRegion(countryCode: "SE")])
        #expect(RegionCatalog.empty.regions(named: "sverige").isEmpty)
    }

    @Test("readings: 'waterloo on', 'newcastle, nsw', 'viken sverige'")
    func readings() {
        let words = { (text: String) in NameFolding.fold(text).split(separator: " ") }
        #expect(
            PlaceSearchPlan.regionReadings(words("waterloo on"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "waterloo", regions: [PlaceRegion(countryCode: "CA", admin1Code: "08")])])
        #expect(
            PlaceSearchPlan.regionReadings(words("newcastle, nsw"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "newcastle", regions: [PlaceRegion(countryCode: "AU", admin1Code: "02")])])
        #expect(
            PlaceSearchPlan.regionReadings(words("viken sverige"), catalog: Self.catalog)
                == [PlaceSearchPlan.Reading(folded: "viken", regions: [PlaceRegion(countryCode: "SE")])])
    }
}
