import FrostboxCore
import Testing

@Suite("Alternate names and languages")
struct AlternateNameTests {
    static func helsinki(_ alternates: [AlternateName]) -> Place {
        Place(
            id: 658225, name: "Helsinki", asciiName: "Helsinki", alternateNames: "HEL,Helsingfors,EFHK,Stadi",
            coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), population: 558_457, alternates: alternates)
    }

    static func alternate(
        _ id: Int64, _ language: String, _ name: String, preferred: Bool = false, short: Bool = false, historic: Bool = false, colloquial: Bool = false,
        to: String = ""
    ) -> AlternateName {
        AlternateName(
            id: id, placeID: 658225, language: language, name: name, isPreferred: preferred, isShort: short,
            isColloquial: colloquial, isHistoric: historic, to: to)
    }

    @Test("pseudo-languages are not names; ISO 639 codes with regions or variants, and no language, are")
    func pseudoLanguages() {
        for code in ["post", "iata", "icao", "faac", "tcid", "abbr", "link", "wkdt", "unlc", "zzzz", "1793"] {
            #expect(!Self.alternate(1, code, "X").isName, "\(code)")
        }
        for code in ["", "fi", "sv", "fil", "zh-CN", "zh-Hant", "fr_1793", "EN"] {
            #expect(Self.alternate(1, code, "X").isName, "\(code)")
        }
    }

    @Test("a form the table knows only as a code (HEL, EFHK) is not searchable; one that is also a name stays")
    func codesLeaveTheNames() {
        let bare = Self.helsinki([])
        #expect(bare.foldedNames.contains("hel"))
        let coded = Self.helsinki([
            Self.alternate(1, "iata", "HEL"), Self.alternate(2, "icao", "EFHK"), Self.alternate(3, "sv", "Helsingfors"),
            Self.alternate(4, "abbr", "Stadi"), Self.alternate(5, "fi", "Stadi", colloquial: true),
            Self.alternate(6, "link", "https://en.wikipedia.org/wiki/Helsinki"), Self.alternate(7, "fi", "Helsingin kaupunki"),
        ])
        #expect(!coded.foldedNames.contains("hel"))
        #expect(!coded.foldedNames.contains("efhk"))
        #expect(coded.foldedNames.contains("stadi"), "a colloquial name in a language is still a name")
        #expect(coded.foldedNames.contains("helsingin kaupunki"), "names only in the table are searchable")
        #expect(!coded.foldedNames.contains { $0.contains("wikipedia") })
        #expect(coded.foldedNames.first == "helsinki")
        #expect(PlaceRanking.bestMatch(of: coded, foldedQuery: "hel")?.name == "Helsinki")
        #expect(PlaceRanking.bestMatch(of: coded, foldedQuery: "efh") == nil)
    }

    @Test("the preferred name of a language: exact tag, then the same primary language; preferred, then short; historic and ended names never")
    func preferredName() {
        let place = Self.helsinki([
            Self.alternate(10, "sv", "Helsingfors", preferred: true),
            Self.alternate(11, "sv", "Hfors", short: true),
            Self.alternate(12, "ru", "Гельсингфорс", historic: true),
            Self.alternate(13, "ru", "Хельсинки"),
            Self.alternate(14, "zh-Hant", "赫爾辛基"),
            Self.alternate(15, "zh", "赫尔辛基"),
            Self.alternate(16, "de", "Helsingfors", to: "1917"),
            Self.alternate(17, "iata", "HEL"),
        ])
        #expect(place.preferredName(languages: ["sv"]) == "Helsingfors")
        #expect(place.preferredName(languages: ["sv-FI"]) == "Helsingfors")
        #expect(place.preferredName(languages: ["ru"]) == "Хельсинки")
        #expect(place.preferredName(languages: ["zh-Hant"]) == "赫爾辛基")
        #expect(place.preferredName(languages: ["zh"]) == "赫尔辛基")
        #expect(place.preferredName(languages: ["de"]) == nil)
        #expect(place.preferredName(languages: ["de", "ru"]) == "Хельсинки")
        #expect(place.preferredName(languages: ["iata"]) == nil)
        #expect(Self.helsinki([]).preferredName(languages: ["sv"]) == nil)
    }

    @Test("lang values are validated; Accept-Language is read leniently, by q then order")
    func languageTags() throws {
        #expect(try LanguageTag.parse("fi") == "fi")
        #expect(try LanguageTag.parse("zh-Hant") == "zh-Hant")
        for bad in ["", "f", "finnish", "fi--FI", "fi-", "f1", "fi-toolongsubtag", "../x", "fi,sv"] {
            #expect(throws: ValidationError.self, "\(bad)") { try LanguageTag.parse(bad) }
        }
        #expect(LanguageTag.acceptLanguage("sv-FI, fi;q=0.9, en;q=0.8, *;q=0.1") == ["sv-FI", "fi", "en"])
        #expect(LanguageTag.acceptLanguage("en;q=0.5, fi") == ["fi", "en"])
        #expect(LanguageTag.acceptLanguage("de;q=0, garbage!!, ;;, fi") == ["fi"])
        #expect(LanguageTag.acceptLanguage("") == [])
    }
}
