import Foundation
import GRDB

/// The manifest beside a places generation: `places-<stamp>-<hash>.json` describes
/// `places-<stamp>-<hash>.sqlite`, a complete places file that is never written again. A
/// server checks a generation against it before switching to it, so a generation can come
/// from anywhere (a shared volume, `rsync`, object storage): a half-copied or damaged file
/// is refused. The manifest is written after the file, so its presence marks the
/// generation complete.
public struct PlaceGenerationManifest: Codable, Sendable, Equatable {
    /// The manifest format this build writes and reads.
    public static let currentFormat = 1

    public var format: Int
    /// The generation's file name, in the manifest's directory.
    public var file: String
    /// When the generation was built, UTC epoch seconds.
    public var createdAt: Int64
    /// The places migrations applied in the file, in order.
    public var migrations: [String]
    public var counts: PlaceGenerationCounts
    /// The file's size in bytes.
    public var bytes: Int64
    /// The file's SHA-256 (lowercase hex), for `sha256sum` checks of copies.
    public var sha256: String

    public init(file: String, createdAt: Int64, migrations: [String], counts: PlaceGenerationCounts, bytes: Int64, sha256: String) {
        self.format = Self.currentFormat
        self.file = file
        self.createdAt = createdAt
        self.migrations = migrations
        self.counts = counts
        self.bytes = bytes
        self.sha256 = sha256
    }

    enum CodingKeys: String, CodingKey {
        case format, file, migrations, counts, bytes, sha256
        case createdAt = "created_at"
    }

    /// The stem of a generation's files: `places-20261126T054600123Z-0123456789ab`. Stems
    /// sort by build time.
    public static func stem(createdAtMilliseconds: Int64, sha256: String) -> String {
        let date = Date(timeIntervalSince1970: Double(createdAtMilliseconds) / 1_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02d%03dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0, Int(createdAtMilliseconds % 1_000))
        return "places-\(stamp)-\(sha256.prefix(12))"
    }

    /// Whether `name` is a generation manifest's file name.
    public static func isManifestName(_ name: String) -> Bool {
        name.hasPrefix("places-") && name.hasSuffix(".json")
    }

    /// Largest manifest read: a real one is a few hundred bytes, so anything bigger is refused
    /// unread (a hostile or damaged file must not cost memory on every watch tick).
    public static let maximumBytes = 64 << 10

    /// Every generation in `directory` whose manifest can be read and is sound (`read(at:)`),
    /// newest first (a manifest being written, of another format, or naming a file that is not
    /// its own generation's is left out).
    public static func all(in directory: String) -> [PlaceGenerationManifest] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter(isManifestName).sorted(by: >).compactMap { name in
            try? read(at: (directory as NSString).appendingPathComponent(name))
        }
    }

    /// Reads the manifest at `path`: a regular file (not a link) of at most `maximumBytes`,
    /// of this build's format, whose `file` is the bare name of its own generation
    /// (`places-….json` describes `places-….sqlite` beside it, nothing else: a manifest
    /// must never point a server or a prune outside its directory).
    public static func read(at path: String) throws(PlaceGenerationError) -> PlaceGenerationManifest {
        switch DirectoryEntry.kind(at: path) {
        case .regular(let size) where size > Int64(maximumBytes):
            throw PlaceGenerationError(path, "the manifest has \(size) bytes, more than the \(maximumBytes) a manifest may have")
        case .regular: break
        case .missing: throw PlaceGenerationError(path, "the manifest cannot be read")
        case .link: throw PlaceGenerationError(path, "the manifest is a symbolic link (refused: generations are plain files)")
        case .other: throw PlaceGenerationError(path, "the manifest is not a regular file")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= maximumBytes else {
            throw PlaceGenerationError(path, "the manifest cannot be read")
        }
        let manifest: PlaceGenerationManifest
        do {
            manifest = try JSONDecoder().decode(PlaceGenerationManifest.self, from: data)
        } catch {
            throw PlaceGenerationError(path, "the manifest is not valid JSON: \(error)")
        }
        guard manifest.format == currentFormat else {
            throw PlaceGenerationError(path, "manifest format \(manifest.format) is not \(currentFormat)")
        }
        let ownFile = ((path as NSString).lastPathComponent as NSString).deletingPathExtension + ".sqlite"
        guard manifest.file == ownFile, isGenerationFileName(manifest.file) else {
            throw PlaceGenerationError(path, "the manifest names \"\(manifest.file)\"; a manifest may name only its own generation, \(ownFile)")
        }
        return manifest
    }

    /// Whether `name` is a bare generation file name: `places-` then letters, digits and
    /// `-`, then `.sqlite`; no path separator, no dot segment.
    public static func isGenerationFileName(_ name: String) -> Bool {
        guard name.hasPrefix("places-"), name.hasSuffix(".sqlite") else { return false }
        let stem = name.dropFirst("places-".count).dropLast(".sqlite".count)
        return !stem.isEmpty
            && stem.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// The manifest as written: sorted keys, one line.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every member is a string, number or array of those: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// What a generation holds, counted when it is built and again before a server uses it.
public struct PlaceGenerationCounts: Codable, Sendable, Equatable, CustomStringConvertible {
    public var places: Int
    /// Rows of the 0.05° box name level.
    public var nameRows: Int
    public var alternateNames: Int
    public var admin1: Int
    public var countries: Int

    public init(places: Int, nameRows: Int, alternateNames: Int, admin1: Int, countries: Int) {
        self.places = places
        self.nameRows = nameRows
        self.alternateNames = alternateNames
        self.admin1 = admin1
        self.countries = countries
    }

    enum CodingKeys: String, CodingKey {
        case places, admin1, countries
        case nameRows = "name_rows"
        case alternateNames = "alternate_names"
    }

    /// Counts the tables of a places file (scans them: for builds and checks, not requests).
    static func read(_ db: Database) throws -> PlaceGenerationCounts {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT (SELECT count(*) FROM place), (SELECT count(*) FROM place_name_box), (SELECT count(*) FROM alternate_name),
                       (SELECT count(*) FROM admin1), (SELECT count(*) FROM country)
                """)!
        return PlaceGenerationCounts(places: row[0], nameRows: row[1], alternateNames: row[2], admin1: row[3], countries: row[4])
    }

    public var description: String {
        "\(places) places, \(nameRows) name rows, \(alternateNames) alternate names, \(admin1) divisions, \(countries) countries"
    }
}

/// Why a places generation cannot be built or used.
public struct PlaceGenerationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file concerned.
    public let path: String
    /// What is wrong with it.
    public let reason: String
    /// The file is missing or shorter than its manifest says: it may still be arriving (a
    /// copy in progress), so it is looked at again later.
    public let incomplete: Bool

    public init(_ path: String, _ reason: String, incomplete: Bool = false) {
        self.path = path
        self.reason = reason
        self.incomplete = incomplete
    }

    public var description: String { "places generation \(path): \(reason)" }
}
