/// A region a "name region" query names: a country, or a first-level division of one.
public struct PlaceRegion: Sendable, Hashable {
    /// ISO 3166 alpha-2 code, e.g. `US`.
    public let countryCode: String
    /// The division's code within the country (`NY` of `US.NY`); nil for the whole country.
    public let admin1Code: String?

    public init(countryCode: String, admin1Code: String? = nil) {
        self.countryCode = countryCode
        self.admin1Code = admin1Code
    }

    /// Whether a place with these codes lies in the region.
    public func contains(countryCode: String, admin1Code: String) -> Bool {
        countryCode == self.countryCode && (self.admin1Code.map { $0 == admin1Code } ?? true)
    }
}

/// The names of the regions a query may name, folded: each first-level division by its
/// name, ASCII name, alphabetic code (`ny` for `US.NY`: GeoNames gives US states their postal
/// codes), ISO 3166-2 code where GeoNames' is numeric (`on` for Ontario, `nsw` for New South
/// Wales: `RegionNames.subdivisionCodes`) and current names in the alternate names table
/// (when the division's own place was imported with them); each country by its name, ISO
/// code (`uk` for `GB` as well), names in other languages (`RegionNames.countryNames`) and
/// current names of its own place in the alternate names table (`deutschland`, `suomi`).
public struct RegionCatalog: Sendable {
    var regions: [String: Set<PlaceRegion>] = [:]

    /// Most words in a region's name that a query is split for (`district of columbia`).
    public static let maximumWords = 3

    /// A catalog knowing no region: every query is a name.
    public static let empty = RegionCatalog()

    init() {}

    /// A catalog of `admin1` divisions and `countries`; `alternates` are alternate names of
    /// the divisions' and countries' places (matched by geonameid; others are ignored).
    public init(admin1: [Admin1Division], countries: [CountryInfo], alternates: [AlternateName] = []) {
        var regionsByID: [Int64: PlaceRegion] = [:]
        for division in admin1 {
            let parts = division.code.split(separator: ".", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let region = PlaceRegion(countryCode: String(parts[0]), admin1Code: String(parts[1]))
            add(division.name, region)
            add(division.asciiName, region)
            if parts[1].count >= 2, parts[1].allSatisfy({ $0.isASCII && $0.isLetter }) { add(String(parts[1]), region) }
            if let code = RegionNames.subdivisionCodes[division.code] { add(code, region) }
            if let id = division.geonameID { regionsByID[id] = region }
        }
        for country in countries {
            let region = PlaceRegion(countryCode: country.code)
            add(country.name, region)
            add(country.code, region)
            // ISO reserves UK for the United Kingdom, whose code is GB; people type UK.
            if country.code == "GB" { add("UK", region) }
            if let id = country.geonameID { regionsByID[id] = region }
        }
        // Shipped, so that the bundled extract (which has no countryInfo) answers them too.
        for (code, names) in RegionNames.countryNames {
            for name in names { add(name, PlaceRegion(countryCode: code)) }
        }
        for alternate in alternates where alternate.isName && alternate.isCurrent {
            if let region = regionsByID[alternate.placeID] { add(alternate.name, region) }
        }
    }

    mutating func add(_ name: String, _ region: PlaceRegion) {
        let folded = NameFolding.fold(name)
        guard !folded.isEmpty else { return }
        regions[folded, default: []].insert(region)
    }

    /// The regions named exactly `folded` (a folded word or words); empty when none.
    public func regions(named folded: some StringProtocol) -> Set<PlaceRegion> {
        regions[String(folded)] ?? []
    }

    /// Whether the catalog knows no region at all.
    public var isEmpty: Bool { regions.isEmpty }
}
