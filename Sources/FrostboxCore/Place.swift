/// A place from a GeoNames "geoname" dump: what search answers need, nothing more.
public struct Place: Sendable, Hashable {
    /// The GeoNames id (`geonameid`): stable across dumps, so re-imports replace by it.
    public var id: Int64
    /// The name in the local language (UTF-8).
    public var name: String
    /// The name in plain ASCII.
    public var asciiName: String
    /// Alternate names, comma-separated, as in the dump (may be empty).
    public var alternateNames: String
    public var coordinate: Coordinate
    /// GeoNames feature class, one letter (`P` populated place, `A` administrative area, …); may be empty.
    public var featureClass: String
    /// GeoNames feature code (`PPLC` capital, `PPL` populated place, `ADM1`, …); may be empty.
    public var featureCode: String
    /// ISO 3166 alpha-2 country code; may be empty (e.g. undersea features).
    public var countryCode: String
    /// First-level administrative division code, as in `admin1CodesASCII.txt` after the country.
    public var admin1Code: String
    /// Inhabitants; 0 when unknown. 64-bit as in the dump.
    public var population: Int64
    /// IANA time zone id, e.g. `Europe/Helsinki`; may be empty.
    public var timezone: String
    /// Last modification date in the dump (`yyyy-MM-dd`); may be empty.
    public var modified: String
    /// The place's entries in GeoNames' alternate names table, when that was imported (empty
    /// otherwise): names by language, and codes that are not names (see `nameForms`).
    public var alternates: [AlternateName] = []

    public init(
        id: Int64, name: String, asciiName: String = "", alternateNames: String = "", coordinate: Coordinate,
        featureClass: String = "P", featureCode: String = "PPL", countryCode: String = "", admin1Code: String = "",
        population: Int64 = 0, timezone: String = "", modified: String = "", alternates: [AlternateName] = []
    ) {
        self.id = id
        self.name = name
        self.asciiName = asciiName
        self.alternateNames = alternateNames
        self.coordinate = coordinate
        self.featureClass = featureClass
        self.featureCode = featureCode
        self.countryCode = countryCode
        self.admin1Code = admin1Code
        self.population = population
        self.timezone = timezone
        self.modified = modified
        self.alternates = alternates
    }

    /// The 0.05° box the place lies in.
    public var box: GeoBox { coordinate.box }

    /// Every written form of the name: name, ASCII name, each alternate name of the dump's
    /// column, then each alternate name in a language from the alternate names table; empty
    /// ones left out. A form that the table only knows as a code (an airport's `HEL`, a
    /// postal code), never as a name, is left out too: the dump's column lists codes among
    /// the names, and nobody types an airport code to find a town.
    public var nameForms: [String] { foldedForms.map(\.form) }

    /// The distinct folded forms of every name (what the index holds for this place).
    public var foldedNames: [String] {
        // A handful of forms per place: a linear scan beats hashing here (the import folds
        // every place of allCountries).
        var result: [String] = []
        for (_, folded) in foldedForms where !folded.isEmpty && !result.contains(folded) {
            result.append(folded)
        }
        return result
    }

    /// `nameForms` with each form folded once.
    var foldedForms: [(form: String, folded: String)] {
        var forms: [String] = [name]
        if !asciiName.isEmpty { forms.append(asciiName) }
        if !alternateNames.isEmpty {
            for part in alternateNames.split(separator: ",") where !part.isEmpty {
                forms.append(String(part))
            }
        }
        let tableNamesStart = forms.count
        for alternate in alternates where alternate.isName && !alternate.name.isEmpty {
            forms.append(alternate.name)
        }
        let folded = forms.map { (form: $0, folded: NameFolding.fold($0)) }
        guard alternates.contains(where: { !$0.isName }) else { return folded }
        // Forms the table has only as codes: a code's form, unless the name, the ASCII name
        // or a name in a language folds the same.
        var codes = Set(alternates.lazy.filter { !$0.isName }.map { NameFolding.fold($0.name) })
        codes.remove(folded[0].folded)
        if !asciiName.isEmpty { codes.remove(folded[1].folded) }
        for entry in folded[tableNamesStart...] { codes.remove(entry.folded) }
        guard !codes.isEmpty else { return folded }
        return folded.filter { !codes.contains($0.folded) }
    }

    /// Whether an alternate form folding to `folded` is one the alternate names table knows
    /// only as a code (`foldedForms` leaves such forms out): a code folds the same, and
    /// neither the name, the ASCII name nor a name of the table does.
    func isCodeOnly(_ folded: String) -> Bool {
        guard alternates.contains(where: { !$0.isName && NameFolding.fold($0.name) == folded }) else { return false }
        if NameFolding.fold(name) == folded || (!asciiName.isEmpty && NameFolding.fold(asciiName) == folded) { return false }
        return !alternates.contains { $0.isName && !$0.name.isEmpty && NameFolding.fold($0.name) == folded }
    }

    /// Whether the place belongs in the coarse search levels (1° cells and population tiers):
    /// settlements (`P`), administrative areas (`A`) and anything with a population. Other
    /// features (lakes, hills, …) are found near the searcher only.
    public var isSettlementLike: Bool {
        featureClass == "P" || featureClass == "A" || population > 0
    }
}

/// The name of a first-level administrative division (`admin1CodesASCII.txt`).
public struct Admin1Division: Sendable, Hashable {
    /// `country.admin1`, e.g. `FI.01`.
    public var code: String
    public var name: String
    public var asciiName: String
    /// The division's own geonameid, when given.
    public var geonameID: Int64?

    public init(code: String, name: String, asciiName: String, geonameID: Int64?) {
        self.code = code
        self.name = name
        self.asciiName = asciiName
        self.geonameID = geonameID
    }
}

/// A country from `countryInfo.txt`.
public struct CountryInfo: Sendable, Hashable {
    /// ISO 3166 alpha-2, e.g. `FI`.
    public var code: String
    public var name: String
    public var capital: String
    public var population: Int64
    public var continent: String
    /// The geonameid of the country's own row (countryInfo's `geonameid` column): its
    /// alternate names name the country in other languages.
    public var geonameID: Int64?

    public init(
        code: String, name: String, capital: String = "", population: Int64 = 0, continent: String = "", geonameID: Int64? = nil
    ) {
        self.geonameID = geonameID
        self.code = code
        self.name = name
        self.capital = capital
        self.population = population
        self.continent = continent
    }
}
