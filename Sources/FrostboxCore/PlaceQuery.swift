/// A validated place search: what the user typed, where they are, how many results.
public struct PlaceQuery: Sendable, Hashable {
    /// Longest query accepted, in characters.
    public static let maximumLength = 100
    /// Allowed result counts.
    public static let limits = 1...50
    /// Default and allowed search radius around `near`, in kilometres.
    public static let defaultRadiusKilometres = 200.0
    public static let radiusKilometres = 1.0...1000.0

    /// The text as typed (trimmed).
    public let text: String
    /// The folded text that is matched against folded names (with a trailing space when the
    /// text ended in a hyphen: see `NameFolding`).
    public let folded: String
    /// When the text ends in a hyphen (`carmel-`): the text folded with its hyphens kept
    /// (`carmel-`), so that names going on with a hyphen there rank first (`PlaceRanking`).
    public let hyphenated: String?
    /// Where the user is; nil searches worldwide by population.
    public let near: Coordinate?
    /// Most results to answer.
    public let limit: Int
    /// How far from `near` results count as nearby: they rank first; places beyond it only
    /// complete a list that has fewer than `limit` nearby places.
    public let radiusKilometres: Double
    /// Languages for each result's `displayName`, most wanted first (validated tags; empty:
    /// the GeoNames name).
    public let languages: [String]

    /// Validates a query; every failure names the parameter at fault.
    public init(
        text: String, near: Coordinate? = nil, limit: Int = 10, radiusKilometres: Double = Self.defaultRadiusKilometres,
        languages: [String] = []
    ) throws(ValidationError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw ValidationError(.invalidQuery, field: "q", "q must not be empty")
        }
        // Code points, as the OpenAPI `maxLength` counts: one letter with ten thousand combining
        // marks is not one character of work.
        guard trimmed.unicodeScalars.count <= Self.maximumLength else {
            throw ValidationError(.invalidQuery, field: "q", "q must be at most \(Self.maximumLength) characters (Unicode code points)")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(.invalidQuery, field: "q", "q must not contain control characters")
        }
        let folded = NameFolding.fold(trimmed, keepingTrailingSeparator: true)
        // Letters and digits of any script, as the OpenAPI pattern says (`[\p{L}\p{N}]`).
        guard !folded.isEmpty, trimmed.unicodeScalars.contains(where: Self.isLetterOrDigit) else {
            throw ValidationError(.invalidQuery, field: "q", "q must contain letters or digits")
        }
        guard Self.limits.contains(limit) else {
            throw ValidationError(
                .invalidField, field: "limit", "limit must be between \(Self.limits.lowerBound) and \(Self.limits.upperBound)")
        }
        guard radiusKilometres.isFinite, Self.radiusKilometres.contains(radiusKilometres) else {
            throw ValidationError(
                .invalidField, field: "radius_km",
                "radius_km must be between \(Int(Self.radiusKilometres.lowerBound)) and \(Int(Self.radiusKilometres.upperBound))")
        }
        self.text = trimmed
        self.folded = folded
        self.hyphenated = folded.hasSuffix(" ") ? NameFolding.foldKeepingHyphens(trimmed) : nil
        self.near = near
        self.limit = limit
        self.radiusKilometres = radiusKilometres
        self.languages = languages
    }

    /// Unicode general categories L* and N*.
    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            true
        default:
            false
        }
    }
}

/// What kind of name a query matched, best first (see `PlaceRanking.nameKind`).
public enum PlaceNameKind: Int, Sendable, Hashable, Comparable {
    /// The place's name, ASCII name, or a current name in one of the query's languages.
    case own = 0
    /// A current alternate name in another language than the query's.
    case alternate = 1
    /// A name given no language (the dump's alternate names column alone, or an entry of the
    /// alternate names table without one), or one the table marks colloquial: not what people
    /// type for a place near them, so within the radius it ranks below every other kind.
    case informal = 2
    /// A name the alternate names table marks as historic, and nothing better.
    case historic = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One search result: the place, the name form that matched, and how it ranked.
public struct PlaceMatch: Sendable, Hashable {
    public var place: Place
    /// The place's best-matching written form of the name (exact before prefix, the main
    /// name before the ASCII name before alternates).
    public var matchedName: String
    /// Whether a name form equals the query after folding.
    public var isExact: Bool
    /// What kind of name matched (own names before alternates before informal and historic
    /// names).
    public var nameKind: PlaceNameKind
    /// Great-circle distance from the query point; nil for worldwide searches.
    public var distanceKilometres: Double?
    /// Whether the place lies within the query's radius (always true without a point).
    public var isNearby: Bool
    /// The ranking score (higher is better; see `PlaceRanking`).
    public var score: Double
    /// Name of the first-level division, when `admin1CodesASCII.txt` was imported.
    public var admin1Name: String?
    /// Name of the country, when `countryInfo.txt` was imported.
    public var countryName: String?
    /// The place's name in the query's languages, when it has one (see
    /// `Place.preferredName(languages:)`).
    public var localizedName: String?
    /// False when the query ends in a hyphen and the place's name does not go on with one
    /// there (see `PlaceRanking`).
    public var continuesAsTyped: Bool
    /// Whether the place's name or ASCII name starts with the query (see `PlaceRanking`).
    public var ownNameIsPrefix: Bool

    /// The name to show: in the query's language when known, else the GeoNames name.
    public var displayName: String { localizedName ?? place.name }

    public init(
        place: Place, matchedName: String, isExact: Bool, nameKind: PlaceNameKind = .own, distanceKilometres: Double?,
        isNearby: Bool = true, score: Double, admin1Name: String? = nil, countryName: String? = nil,
        localizedName: String? = nil, continuesAsTyped: Bool = true, ownNameIsPrefix: Bool = false
    ) {
        self.ownNameIsPrefix = ownNameIsPrefix
        self.continuesAsTyped = continuesAsTyped
        self.place = place
        self.matchedName = matchedName
        self.isExact = isExact
        self.nameKind = nameKind
        self.distanceKilometres = distanceKilometres
        self.isNearby = isNearby
        self.score = score
        self.admin1Name = admin1Name
        self.countryName = countryName
        self.localizedName = localizedName
    }
}
