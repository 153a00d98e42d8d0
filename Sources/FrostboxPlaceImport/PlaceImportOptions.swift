import Foundation
import FrostboxCore

/// What to import and which rows to keep.
public struct PlaceImportOptions: Sendable {
    /// Keep only these feature classes (`P`, `A`, …); nil keeps all.
    public var featureClasses: Set<String>?
    /// Keep only these country codes; nil keeps all.
    public var countries: Set<String>?
    /// Keep only places with at least this population.
    public var minimumPopulation: Int64 = 0
    /// Drop every stored place first (not only those with an imported geonameid).
    public var replace = false
    /// Places per staging transaction.
    public var batchSize = 5_000
    /// Place and alternate-name files up to this many bytes in all, into a database that
    /// holds places, are applied in place (a day's changes: milliseconds to seconds);
    /// larger ones, or `replace`, rebuild the name tables (bulk).
    public var incrementalLimitBytes: Int64 = 64 << 20
    /// Run the import's threads at nice 10, below the service's.
    public var backgroundPriority = true

    public init() {}

    /// Parses a `P,A` or `FI,SE` list (as `--feature-classes` and `--countries` take them)
    /// into an upper-case set; nil for nil or an empty list.
    public static func codeSet(_ raw: String?) -> Set<String>? {
        guard let raw else { return nil }
        let codes = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
        return codes.isEmpty ? nil : Set(codes)
    }

    /// Whether a parsed place passes the filters.
    func keeps(_ place: Place) -> Bool {
        if let featureClasses, !featureClasses.contains(place.featureClass) { return false }
        if let countries, !countries.contains(place.countryCode) { return false }
        return place.population >= minimumPopulation
    }
}

/// Where an import stands, for progress lines.
public struct PlaceImportProgress: Sendable {
    public var rowsRead: Int
    public var bytesRead: Int64
    public var totalBytes: Int64
    public var elapsedSeconds: Double
    /// Set while the indexes are built after reading.
    public var phase: String?
}
