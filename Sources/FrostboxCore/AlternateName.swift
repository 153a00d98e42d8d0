/// A name of a place from GeoNames' `alternateNames` table (`alternateNamesV2.txt`): a name
/// in a language, with GeoNames' flags — or, under a pseudo-language, a code or a link
/// (`post` postal codes, `iata`/`icao`/`faac` airport codes, `link` URLs, `wkdt` Wikidata
/// ids, …), which are not names and are never searched.
public struct AlternateName: Sendable, Hashable {
    /// GeoNames' `alternateNameId`: updates and deletes refer to it.
    public var id: Int64
    /// The geonameid of the place named.
    public var placeID: Int64
    /// `isolanguage`: an ISO 639 code, optionally with a region or variant (`zh-CN`,
    /// `zh-Hant`); empty when unknown; or a pseudo-language code.
    public var language: String
    public var name: String
    /// An official or preferred name in its language.
    public var isPreferred: Bool
    /// A short form (`Finland` for `Republic of Finland`).
    public var isShort: Bool
    public var isColloquial: Bool
    public var isHistoric: Bool
    /// When the name was in use (`from`, `to` columns of V2; free text, mostly years).
    public var from: String
    public var to: String

    public init(
        id: Int64, placeID: Int64, language: String, name: String, isPreferred: Bool = false, isShort: Bool = false,
        isColloquial: Bool = false, isHistoric: Bool = false, from: String = "", to: String = ""
    ) {
        self.id = id
        self.placeID = placeID
        self.language = language
        self.name = name
        self.isPreferred = isPreferred
        self.isShort = isShort
        self.isColloquial = isColloquial
        self.isHistoric = isHistoric
        self.from = from
        self.to = to
    }

    /// The pseudo-languages GeoNames documents: codes, identifiers and links, not names.
    public static let pseudoLanguages: Set<String> = [
        "post", "iata", "icao", "faac", "tcid", "abbr", "link", "wkdt", "unlc", "phon", "piny",
    ]

    /// Whether this is a name in a language (or of unknown language), as opposed to a
    /// pseudo-language entry. A language is an ISO 639 code of 2 or 3 letters, optionally
    /// followed by `-` or `_` and a region or variant (`zh-Hant`, `fr_1793`); anything else
    /// (the 4-letter codes above and any other such code GeoNames adds) is not a name.
    public var isName: Bool { Self.isLanguage(language) }

    static func isLanguage(_ tag: String) -> Bool {
        if tag.isEmpty { return true }
        if pseudoLanguages.contains(tag) { return false }
        let primary = tag.utf8.prefix { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }
        return (2...3).contains(primary.count) && primary.allSatisfy { (0x61...0x7A).contains($0 | 0x20) }
    }

    /// Whether the name is current: not historic, not colloquial, with no end date.
    var isCurrent: Bool { !isHistoric && !isColloquial && to.isEmpty }
}

extension Place {
    /// The place's name in the first of `languages` (ISO 639 tags, most wanted first) that
    /// has one: a current alternate name in exactly that language, else in the same primary
    /// language (`fi` for `fi-FI`, `zh-Hant` for `zh`); within a language the preferred
    /// name first, then a short one, then the oldest entry. nil when none of the languages has
    /// a name: callers show `name`, the GeoNames name.
    public func preferredName(languages: [String]) -> String? {
        guard !alternates.isEmpty else { return nil }
        for wanted in languages {
            let tag = wanted.lowercased()
            let primary = LanguageTag.primary(of: tag)
            var best: (name: AlternateName, rank: (Int, Int, Int, Int64))?
            for alternate in alternates where alternate.isName && alternate.isCurrent && !alternate.language.isEmpty {
                let language = alternate.language.lowercased()
                let closeness: Int
                if language == tag {
                    closeness = 0
                } else if LanguageTag.primary(of: language) == primary {
                    closeness = 1
                } else {
                    continue
                }
                let rank = (closeness, alternate.isPreferred ? 0 : 1, alternate.isShort ? 0 : 1, alternate.id)
                if best.map({ rank < $0.rank }) ?? true { best = (alternate, rank) }
            }
            if let best { return best.name.name }
        }
        return nil
    }
}
