import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxGeoNames
import Testing

/// The search rules of issue #34 on real GeoNames rows, against every `PlaceIndex`: the
/// position biases rather than filters, "name region" in either order, a place's own name
/// before other places' alternate names, historic names last, a trailing hyphen ends a word;
/// and those of issue #49: within the radius, names without a language below own names,
/// short forms exact only, `carmel-` ranking hyphenated names first.
@Suite("PlaceIndex contract: search rules on real rows")
struct PlaceSearchRulesContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-place-rules")
    }

    static let vuosaari = Coordinate(uncheckedLatitude: 60.21, longitude: 25.14)
    static let london = Coordinate(uncheckedLatitude: 51.507, longitude: -0.128)

    /// Rows of the shipped extract (data/geonames/nordic-cities1000.txt), by geonameid.
    static func extract(_ ids: Set<Int64>) throws -> [Place] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("data/geonames/nordic-cities1000.txt"), encoding: .utf8)
        let places = try text.split(separator: "\n").map { try GeoNamesRow.parse(String($0)) }.filter { ids.contains($0.id) }
        #expect(places.count == ids.count, "every row asked for is in the extract")
        return places
    }

    /// The three Ås, the two Viken, the two Skåre of the extract, and Reykjavík.
    static let nordicIDs: Set<Int64> = [3_162_797, 2_725_076, 2_725_073, 601_972, 2_663_036, 2_678_153, 2_678_156, 3_413_829]

    /// Their divisions and countries, as `admin1CodesASCII.txt` and `countryInfo.txt` give them.
    static let nordicAdmin1 = [
        Admin1Division(code: "NO.01", name: "Akershus", asciiName: "Akershus", geonameID: 3_163_480),
        Admin1Division(code: "SE.07", name: "Jämtland", asciiName: "Jamtland", geonameID: 2_703_330),
        Admin1Division(code: "SE.22", name: "Värmland", asciiName: "Varmland", geonameID: 2_664_870),
        Admin1Division(code: "SE.23", name: "Västerbotten", asciiName: "Vasterbotten", geonameID: 2_664_415),
        Admin1Division(code: "SE.24", name: "Västernorrland", asciiName: "Vasternorrland", geonameID: 2_664_292),
        Admin1Division(code: "SE.27", name: "Skåne", asciiName: "Skane", geonameID: 3_337_385),
    ]
    static let nordicCountries = [
        CountryInfo(code: "NO", name: "Norway"), CountryInfo(code: "SE", name: "Sweden"),
        CountryInfo(code: "IS", name: "Iceland"),
    ]

    /// GeoNames rows of the places the issue names (cities15000 columns; alternate names cut
    /// to the ones that matter here), with their divisions: US states by postal code.
    static let americanRows = [
        "5134086\tRochester\tRochester\tRochester,Рочестер\t43.15478\t-77.61556\tP\tPPLA2\tUS\t\tNY\t055\t\t\t211328\t154\t156\tAmerica/New_York\t2019-08-30",
        "5043473\tRochester\tRochester\tRochester,Рочестер\t44.02163\t-92.4699\tP\tPPLA2\tUS\t\tMN\t109\t\t\t111402\t302\t304\tAmerica/Chicago\t2017-05-23",
        "4880889\tWaterloo\tWaterloo\tWaterloo,Ватерлоо\t42.49276\t-92.34296\tP\tPPLA2\tUS\t\tIA\t013\t\t\t67798\t258\t259\tAmerica/Chicago\t2017-05-23",
        "6176823\tWaterloo\tWaterloo\tWaterloo,Ватерлоо\t43.4668\t-80.51639\tP\tPPL\tCA\t\t08\t3530\t\t\t104986\t\t329\tAmerica/Toronto\t2019-08-29",
        "4671654\tAustin\tAustin\tAustin,Austin City,Waterloo,Остин\t30.26715\t-97.74306\tP\tPPLA\tUS\t\tTX\t453\t\t\t931830\t149\t165\tAmerica/Chicago\t2019-09-05",
        "2644210\tLiverpool\tLiverpool\tLiverpool,Ливерпул\t53.41058\t-2.97794\tP\tPPLA2\tGB\t\tENG\tH8\t\t\t864122\t\t31\tEurope/London\t2019-09-05",
        "4255151\tCarmel\tCarmel\tCarmel\t39.97837\t-86.11804\tP\tPPL\tUS\t\tIN\t057\t\t\t91065\t258\t262\tAmerica/Indiana/Indianapolis\t2017-05-23",
        "5332917\tCarmel-by-the-Sea\tCarmel-by-the-Sea\tCarmel,Carmel-by-the-Sea\t36.55524\t-121.92329\tP\tPPL\tUS\t\tCA\t053\t\t\t3833\t67\t68\tAmerica/Los_Angeles\t2017-03-09",
    ]
    static let americanAdmin1 = [
        Admin1Division(code: "US.NY", name: "New York", asciiName: "New York", geonameID: 5_128_638),
        Admin1Division(code: "US.MN", name: "Minnesota", asciiName: "Minnesota", geonameID: 5_037_779),
        Admin1Division(code: "US.IA", name: "Iowa", asciiName: "Iowa", geonameID: 4_862_182),
        Admin1Division(code: "US.TX", name: "Texas", asciiName: "Texas", geonameID: 4_736_286),
        Admin1Division(code: "US.IN", name: "Indiana", asciiName: "Indiana", geonameID: 4_921_868),
        Admin1Division(code: "US.CA", name: "California", asciiName: "California", geonameID: 5_332_921),
        Admin1Division(code: "CA.08", name: "Ontario", asciiName: "Ontario", geonameID: 6_093_943),
        Admin1Division(code: "GB.ENG", name: "England", asciiName: "England", geonameID: 6_269_131),
    ]
    static let americanCountries = [
        CountryInfo(code: "US", name: "United States"), CountryInfo(code: "CA", name: "Canada"),
        CountryInfo(code: "GB", name: "United Kingdom"),
    ]

    func nordic(_ implementation: PlaceIndexImplementation, extra: [Place] = []) throws -> any PlaceIndex {
        try implementation.make(
            try Self.extract(Self.nordicIDs) + extra, admin1: Self.nordicAdmin1, countries: Self.nordicCountries, in: directory)
    }

    func american(_ implementation: PlaceIndexImplementation) throws -> any PlaceIndex {
        let places = try Self.americanRows.map { try GeoNamesRow.parse($0) }
        return try implementation.make(places, admin1: Self.americanAdmin1, countries: Self.americanCountries, in: directory)
    }

    func ids(
        _ index: any PlaceIndex, _ text: String, near: Coordinate? = nil, limit: Int = 10, languages: [String] = []
    ) async throws -> [Int64] {
        try await index.search(try PlaceQuery(text: text, near: near, limit: limit, languages: languages)).map(\.place.id)
    }

    @Test(
        "beyond the radius: nothing nearby is completed from everywhere, exact first, by population, each with its distance",
        arguments: PlaceIndexImplementation.available)
    func completion(_ implementation: PlaceIndexImplementation) async throws {
        let index = try nordic(implementation)
        let results = try await index.search(try PlaceQuery(text: "ås", near: Self.vuosaari))
        #expect(results.map(\.place.id) == [3_162_797, 2_725_076, 2_725_073])
        #expect(results.allSatisfy { !$0.isNearby })
        let distance = try #require(results.first?.distanceKilometres)
        #expect(abs(distance - Self.vuosaari.distanceKilometres(to: results[0].place.coordinate)) < 1e-6)
        #expect(distance > 700, "Ås, Norway lies beyond the 200 km radius")
        #expect(try await ids(index, "reykjav", near: Self.vuosaari) == [3_413_829])
    }

    @Test(
        "nearby places rank before the completion, whatever its population; a full nearby list is not completed",
        arguments: PlaceIndexImplementation.available)
    func nearbyFirst(_ implementation: PlaceIndexImplementation) async throws {
        let index = try nordic(implementation)
        // Near Östersund (Jämtland), the Jämtland Ås (1,572 people) is nearby; the larger
        // Norwegian one completes the list after it.
        let ostersund = Coordinate(uncheckedLatitude: 63.18, longitude: 14.64)
        let results = try await index.search(try PlaceQuery(text: "ås", near: ostersund, radiusKilometres: 50))
        #expect(results.map(\.place.id) == [2_725_076, 3_162_797, 2_725_073])
        #expect(results.map(\.isNearby) == [true, false, false])
        #expect(try await ids(index, "ås", near: ostersund, limit: 1) == [2_725_076])
    }

    @Test(
        "'name region' and 'region, name': an admin1 name or code, a country name or code, in either order",
        arguments: PlaceIndexImplementation.available)
    func nameRegion(_ implementation: PlaceIndexImplementation) async throws {
        let index = try nordic(implementation)
        #expect(try await ids(index, "viken").first == 2_663_036)
        #expect(try await ids(index, "viken västerbotten").first == 601_972)
        #expect(try await ids(index, "Viken, Vasterbotten").first == 601_972)
        #expect(try await ids(index, "västerbotten viken").first == 601_972)
        #expect(try await ids(index, "skåre, värmland").first == 2_678_156)
        #expect(try await ids(index, "skåre skåne").first == 2_678_153)
        #expect(try await ids(index, "ås sweden") == [2_725_076, 2_725_073])
        #expect(try await ids(index, "as, se") == [2_725_076, 2_725_073])
        #expect(try await ids(index, "ås norway", near: Self.vuosaari) == [3_162_797])
        #expect(try await ids(index, "ås akershus") == [3_162_797])
    }

    @Test(
        "US states by postal code, countries and divisions by name; a region word that names nothing falls back to the name",
        arguments: PlaceIndexImplementation.available)
    func postalCodes(_ implementation: PlaceIndexImplementation) async throws {
        let index = try american(implementation)
        #expect(try await ids(index, "rochester ny", near: Self.london) == [5_134_086])
        #expect(try await ids(index, "rochester, mn") == [5_043_473])
        #expect(try await ids(index, "waterloo ia").first == 4_880_889)
        #expect(try await ids(index, "waterloo, ontario").first == 6_176_823)
        #expect(try await ids(index, "liverpool england", near: Self.vuosaari) == [2_644_210])
        #expect(try await ids(index, "liverpool uk") == [2_644_210])
        #expect(try await ids(index, "rochester xy") == [5_134_086, 5_043_473])
        #expect(try await ids(index, "rochester england") == [5_134_086, 5_043_473], "a region without the place falls back too")
    }

    @Test("the alternate names of a division's place name it in other languages", arguments: PlaceIndexImplementation.available)
    func regionInOtherLanguages(_ implementation: PlaceIndexImplementation) async throws {
        var skane = Place(
            id: 3_337_385, name: "Skåne", asciiName: "Skane", coordinate: Coordinate(uncheckedLatitude: 55.99, longitude: 13.58),
            featureClass: "A", featureCode: "ADM1", countryCode: "SE", admin1Code: "27", population: 1_303_627)
        skane.alternates = [
            AlternateName(id: 1_000_001, placeID: 3_337_385, language: "en", name: "Scania"),
            AlternateName(id: 1_000_002, placeID: 3_337_385, language: "sv", name: "Skåne län", isPreferred: true),
        ]
        let index = try nordic(implementation, extra: [skane])
        #expect(try await ids(index, "viken scania").first == 2_663_036)
        #expect(try await ids(index, "viken skåne län").first == 2_663_036)
    }

    @Test(
        "a place's own name ranks above another place's alternate name at the same match",
        arguments: PlaceIndexImplementation.available)
    func ownNameFirst(_ implementation: PlaceIndexImplementation) async throws {
        let index = try american(implementation)
        let waterloo = try await index.search(try PlaceQuery(text: "waterloo"))
        #expect(waterloo.map(\.place.id) == [6_176_823, 4_880_889, 4_671_654])
        #expect(waterloo.map(\.nameKind) == [.own, .own, .informal], "Austin's 'Waterloo' is in its column, in no language")
    }

    @Test(
        "a place found by another of its names passes a place of that name ~30 times smaller, not one ~10 times smaller",
        arguments: PlaceIndexImplementation.available)
    func alternateNameCost(_ implementation: PlaceIndexImplementation) async throws {
        let rome = Place(
            id: 90_000_020, name: "Rome", asciiName: "Rome", alternateNames: "Roma,Rom",
            coordinate: Coordinate(uncheckedLatitude: 41.89, longitude: 12.51), countryCode: "IT", population: 2_300_000)
        let town = Place(
            id: 90_000_021, name: "Roma", asciiName: "Roma", coordinate: Coordinate(uncheckedLatitude: -26.57, longitude: 148.79),
            countryCode: "AU", population: 7_000)
        let city = Place(
            id: 90_000_022, name: "Rom", asciiName: "Rom", coordinate: Coordinate(uncheckedLatitude: 50.0, longitude: 10.0),
            countryCode: "DE", population: 250_000)
        let index = try implementation.make([rome, town, city], in: directory)
        #expect(try await ids(index, "roma") == [90_000_020, 90_000_021])
        #expect(try await ids(index, "rom", limit: 1) == [90_000_022], "Rome's 'Rom' costs 1.5: 6.36 − 1.5 < 5.40")
    }

    @Test(
        "a historic name ranks last; a name in the query's language counts as the place's own",
        arguments: PlaceIndexImplementation.available)
    func historicLast(_ implementation: PlaceIndexImplementation) async throws {
        // Kristiania was Oslo's name until 1925: a small place named so today comes first.
        let oslo = Place(
            id: 3_143_244, name: "Oslo", asciiName: "Oslo", alternateNames: "Christiania,Kristiania,Oslo",
            coordinate: Coordinate(uncheckedLatitude: 59.91273, longitude: 10.74609), featureClass: "P", featureCode: "PPLC",
            countryCode: "NO", admin1Code: "12", population: 580_000, timezone: "Europe/Oslo",
            alternates: [
                AlternateName(id: 2_000_001, placeID: 3_143_244, language: "no", name: "Kristiania", isHistoric: true),
                AlternateName(id: 2_000_002, placeID: 3_143_244, language: "da", name: "Christiania", isHistoric: true),
                AlternateName(id: 2_000_003, placeID: 3_143_244, language: "la", name: "Osloa"),
            ])
        let namesake = Place(
            id: 90_000_010, name: "Kristianiahamn", asciiName: "Kristianiahamn", coordinate: Coordinate(uncheckedLatitude: 60.0, longitude: 11.0),
            countryCode: "NO", admin1Code: "01", population: 50)
        let other = Place(
            id: 90_000_011, name: "Østby", asciiName: "Ostby", alternateNames: "Osloaby",
            coordinate: Coordinate(uncheckedLatitude: 60.1, longitude: 11.1), countryCode: "NO", admin1Code: "01", population: 60)
        let index = try implementation.make([oslo, namesake, other], in: directory)
        let kristiania = try await index.search(try PlaceQuery(text: "kristiania"))
        #expect(kristiania.map(\.place.id) == [3_143_244, 90_000_010], "the exact historic match still beats a prefix match")
        let prefix = try await index.search(try PlaceQuery(text: "kristian"))
        #expect(prefix.map(\.place.id) == [90_000_010, 3_143_244])
        #expect(prefix.map(\.nameKind) == [.own, .historic])
        #expect(try await ids(index, "osloa") == [3_143_244, 90_000_011], "Osloa is Latin for Oslo, a current alternate")
        #expect(try await index.search(try PlaceQuery(text: "osloa", languages: ["la"])).first?.nameKind == .own)
    }

    @Test(
        "a trailing hyphen ends the word: 'carmel-' finds Carmel-by-the-Sea, not Carmel",
        arguments: PlaceIndexImplementation.available)
    func trailingHyphen(_ implementation: PlaceIndexImplementation) async throws {
        let index = try american(implementation)
        #expect(try await ids(index, "carmel").first == 4_255_151)
        #expect(try await ids(index, "carmel-") == [5_332_917])
        #expect(try await ids(index, "Carmel -") == [5_332_917])
        #expect(try await ids(index, "carmel in") == [4_255_151])
    }

    static let skelleftea = Coordinate(uncheckedLatitude: 64.75067, longitude: 20.95279)
    static let torva = Coordinate(uncheckedLatitude: 58.00278, longitude: 25.935)
    static let ostermalm = Coordinate(uncheckedLatitude: 59.33879, longitude: 18.08487)

    @Test(
        "within the radius, a name without a language ranks below every own name: 'h' near Skellefteå (Heletti), Tõrva (Helmut)",
        arguments: PlaceIndexImplementation.available)
    func informalNamesBelowOwnNames(_ implementation: PlaceIndexImplementation) async throws {
        // Skellefteå, Hortlax, Holmsund; Tõrva, Haljala, Haapsalu (rows of the extract).
        let index = try implementation.make(
            try Self.extract([602_913, 605_647, 605_676, 588_204, 592_200, 592_225]), in: directory)
        let nearSkelleftea = try await index.search(try PlaceQuery(text: "h", near: Self.skelleftea))
        // Nearby first (the other three lie beyond 200 km and complete the list).
        #expect(nearSkelleftea.prefix(3).map(\.place.id) == [605_647, 605_676, 602_913], "Skellefteå is 'Heletti' only in the column")
        #expect(nearSkelleftea.prefix(3).map(\.nameKind) == [.own, .own, .informal])
        #expect(try await ids(index, "hel", near: Self.torva).first == 588_204, "nothing else near Tõrva is 'hel…': Helmut still finds it")
        let nearTorva = try await ids(index, "h", near: Self.torva).prefix(3)
        #expect(nearTorva.last == 588_204 && Set(nearTorva.dropLast()) == [592_200, 592_225])
    }

    @Test(
        "'st' near Östermalm: Stenhamra's own name before Östermalm's 'Stockholm kerületei'",
        arguments: PlaceIndexImplementation.available)
    func informalBelowSmallerOwnName(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(try Self.extract([2_685_828, 2_673_730, 2_674_209]), in: directory)
        #expect(try await ids(index, "st", near: Self.ostermalm) == [2_673_730, 2_674_209, 2_685_828])
    }

    @Test(
        "a short alternate form (a code) matches only when typed whole: 'sf' does not find Skellefteå by 'SFT', 'sft' does",
        arguments: PlaceIndexImplementation.available)
    func shortFormsExactOnly(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(try Self.extract([602_913, 605_647]), in: directory)
        #expect(try await ids(index, "sf", near: Self.skelleftea) == [])
        #expect(try await ids(index, "sf") == [])
        #expect(try await ids(index, "sft", near: Self.skelleftea) == [602_913])
        #expect(try await ids(index, "sk", near: Self.skelleftea) == [602_913], "its own name still matches by prefix")
    }

    @Test(
        "'carmel-' ranks Carmel-by-the-Sea before the larger Carmel Valley Village next to it",
        arguments: PlaceIndexImplementation.available)
    func trailingHyphenRanksHyphenatedFirst(_ implementation: PlaceIndexImplementation) async throws {
        // Carmel Valley Village as GeoNames gives it (written by hand: no network here).
        let valley = try GeoNamesRow.parse(
            "5332698\tCarmel Valley Village\tCarmel Valley Village\t\t36.50829\t-121.74578\tP\tPPL\tUS\t\tCA\t053\t\t\t4407\t133\t131\tAmerica/Los_Angeles\t2011-05-14"
        )
        let places = try Self.americanRows.map { try GeoNamesRow.parse($0) } + [valley]
        let index = try implementation.make(places, admin1: Self.americanAdmin1, countries: Self.americanCountries, in: directory)
        let monterey = Coordinate(uncheckedLatitude: 36.6, longitude: -121.89)
        #expect(try await ids(index, "carmel-", near: monterey) == [5_332_917, 5_332_698])
        #expect(try await ids(index, "carmel-") == [5_332_917, 5_332_698])
        #expect(try await ids(index, "carmel v", near: monterey) == [5_332_698])
    }

    @Test(
        "countries in other languages as the region: 'ås norge', 'as, ruotsi', 'viken sverige', without countryInfo",
        arguments: PlaceIndexImplementation.available)
    func countryInOtherLanguages(_ implementation: PlaceIndexImplementation) async throws {
        // As the bundled extract is seeded: places alone, no division or country table.
        let index = try implementation.make(try Self.extract(Self.nordicIDs), in: directory)
        #expect(try await ids(index, "ås norge") == [3_162_797])
        #expect(try await ids(index, "as, ruotsi") == [2_725_076, 2_725_073])
        #expect(try await ids(index, "viken sverige") == [2_663_036, 601_972])
        #expect(try await ids(index, "ísland reykjavík") == [3_413_829])
    }

    @Test(
        "a country's own row names it: 'viken konungariket' through the alternate names of Sweden's row",
        arguments: PlaceIndexImplementation.available)
    func countryRowAlternates(_ implementation: PlaceIndexImplementation) async throws {
        var sweden = Place(
            id: 2_661_886, name: "Sweden", asciiName: "Sweden", coordinate: Coordinate(uncheckedLatitude: 62.0, longitude: 15.0),
            featureClass: "A", featureCode: "PCLI", countryCode: "SE", population: 10_183_175)
        sweden.alternates = [AlternateName(id: 3_000_001, placeID: 2_661_886, language: "sv", name: "Konungariket Sverige")]
        let index = try implementation.make(
            try Self.extract(Self.nordicIDs) + [sweden], admin1: Self.nordicAdmin1,
            countries: [CountryInfo(code: "SE", name: "Sweden", geonameID: 2_661_886)], in: directory)
        #expect(try await ids(index, "viken konungariket sverige") == [2_663_036, 601_972])
    }

    @Test(
        "Canadian and Australian divisions by ISO 3166-2 code: 'waterloo on', 'newcastle nsw', 'melbourne vic'",
        arguments: PlaceIndexImplementation.available)
    func subdivisionCodes(_ implementation: PlaceIndexImplementation) async throws {
        // GeoNames rows of these places (written by hand: no network here), divisions as admin1CodesASCII gives them.
        let rows = [
            "2155472\tNewcastle\tNewcastle\tNewcastle\t-32.92953\t151.7801\tP\tPPLA2\tAU\t\t02\t\t\t\t308308\t\t12\tAustralia/Sydney\t2019-07-18",
            "2641673\tNewcastle upon Tyne\tNewcastle upon Tyne\tNewcastle\t54.97328\t-1.61396\tP\tPPLA2\tGB\t\tENG\tJ9\t\t\t192382\t\t47\tEurope/London\t2019-09-18",
            "2158177\tMelbourne\tMelbourne\tMelbourne\t-37.814\t144.96332\tP\tPPLA\tAU\t\t07\t24600\t\t\t4246375\t\t25\tAustralia/Melbourne\t2019-07-18",
            "4163971\tMelbourne\tMelbourne\tMelbourne\t28.08363\t-80.60811\tP\tPPL\tUS\t\tFL\t009\t\t\t80209\t6\t8\tAmerica/New_York\t2017-03-09",
        ]
        let places = try (Self.americanRows + rows).map { try GeoNamesRow.parse($0) }
        let admin1 =
            Self.americanAdmin1 + [
                Admin1Division(code: "AU.02", name: "New South Wales", asciiName: "New South Wales", geonameID: 2_155_400),
                Admin1Division(code: "AU.07", name: "Victoria", asciiName: "Victoria", geonameID: 2_145_234),
                Admin1Division(code: "US.FL", name: "Florida", asciiName: "Florida", geonameID: 4_155_751),
            ]
        let index = try implementation.make(places, admin1: admin1, countries: Self.americanCountries, in: directory)
        let orlando = Coordinate(uncheckedLatitude: 28.54, longitude: -81.38)
        #expect(try await ids(index, "waterloo on") == [6_176_823])
        #expect(try await ids(index, "newcastle nsw", near: Self.london) == [2_155_472])
        #expect(try await ids(index, "melbourne vic", near: orlando) == [2_158_177])
        #expect(try await ids(index, "melbourne", near: orlando).first == 4_163_971, "without the region the nearby one")
    }
}
