import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxPlaceImport
import FrostboxSQLite
import Logging
import Testing

/// `PlaceGenerationBuild` (import into a new generation) and `PlacesInUse` (which file
/// searches read, and the switch), on real files in a temporary directory.
@Suite("Places generations: build, check, switch")
struct PlaceGenerationTests {
    let temporary: TemporaryDirectory
    var directory: String { temporary.path("generations") }
    let logger = Logger(label: "test")

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-generations")
        try FileManager.default.createDirectory(atPath: temporary.path("generations"), withIntermediateDirectories: true)
    }

    /// The extract's Helsinki row with `name` added to its alternate names, as a day's file.
    func day(_ name: String, date: String) throws -> String {
        let row = try String(contentsOfFile: PlaceImportTests.extractPath, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("658225\t") }!
        var fields = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[3] += ",\(name)"
        let path = temporary.path("modifications-\(date).txt")
        try Data((fields.joined(separator: "\t") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func build(_ paths: [String], replace: Bool = false, keep: Int = 3) async throws -> PlaceGenerationBuild.Outcome {
        var options = PlaceImportOptions()
        options.replace = replace
        return try await PlaceGenerationBuild.run(paths: paths, options: options, directory: directory, keep: keep, logger: logger)
    }

    func names(_ places: PlacesInUse, _ text: String) async throws -> [Int64] {
        let query = try PlaceQuery(text: text, near: Coordinate(uncheckedLatitude: 60.2, longitude: 24.9))
        return try await GRDBPlaceIndex(places: places).search(query).map(\.place.id)
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test("a build writes a sealed file and its manifest, whose counts, size and hash are the file's; a day starts from the newest")
    func buildWritesManifest() async throws {
        let first = try await build([PlaceImportTests.extractPath], replace: true)
        #expect(first.base == nil)
        #expect(first.manifest.file.hasPrefix("places-") && first.manifest.file.hasSuffix(".sqlite"))
        #expect(first.manifest.counts.places == first.summary.accepted)
        #expect(first.manifest.migrations == PlaceGenerationFile.migrations)
        let path = (directory as NSString).appendingPathComponent(first.manifest.file)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        #expect(size?.int64Value == first.manifest.bytes)
        #expect(first.manifest.file.contains(first.manifest.sha256.prefix(12)))
        let stem = (first.manifest.file as NSString).deletingPathExtension
        #expect(try files() == [stem + ".json", stem + ".sqlite"])
        let second = try await build([try day("Frostgen One", date: "2026-11-24")])
        #expect(second.base == first.manifest.file)
        #expect(second.manifest.counts.places == first.manifest.counts.places)
        #expect(second.manifest.file > first.manifest.file)
    }

    @Test("a directory serves its newest generation; a check switches new searches to a newer one, and a search sees the new day")
    func switchesToNewer() async throws {
        _ = try await build([PlaceImportTests.extractPath], replace: true)
        let places = try PlacesInUse(path: directory, logger: logger)
        let first = places.status.generation
        #expect(try await names(places, "frostgen two").isEmpty)
        #expect(await places.check(now: 100) == .unchanged(generation: first))
        let next = try await build([try day("Frostgen Two", date: "2026-11-25")])
        let oldDatabase = places.database
        #expect(await places.check(now: 200) == .switched(generation: next.manifest.file))
        let status = places.status
        #expect(status.generation == next.manifest.file && status.createdAt == next.manifest.createdAt)
        #expect(status.switchedAt == 200 && status.switches == 1)
        #expect(try await names(places, "frostgen two") == [658_225])
        // A search that holds the previous file finishes on it.
        #expect(try await oldDatabase.placeCount() == next.manifest.counts.places)
    }

    @Test("a damaged generation is refused once, with a log line; the server keeps its generation and later takes a good newer one")
    func refusesDamaged() async throws {
        let good = try await build([PlaceImportTests.extractPath], replace: true)
        let logs = RecordingLogHandler.Store()
        let places = try PlacesInUse(path: directory, logger: logs.logger())
        let bad = try await build([try day("Frostgen Bad", date: "2026-11-26")])
        // Same size, other bytes: the manifest's counts no longer hold (or quick_check fails).
        let badPath = (directory as NSString).appendingPathComponent(bad.manifest.file)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: badPath))
        for offset in stride(from: bytes.count / 2, to: bytes.count, by: 4096) { bytes[offset + 100] ^= 0xFF }
        try bytes.write(to: URL(fileURLWithPath: badPath))
        let result = await places.check(now: 300)
        guard case .refused(let generation, _) = result else {
            Issue.record("not refused: \(result)")
            return
        }
        #expect(generation == bad.manifest.file)
        #expect(places.status.generation == good.manifest.file)
        #expect(places.status.refusals == 1)
        #expect(try await names(places, "frostgen bad").isEmpty)
        #expect(await places.check(now: 400) == .refused(generation: bad.manifest.file, reason: result.reason))
        #expect(logs.all.filter { $0.level == .error && $0.message.contains("refusing places generation") }.count == 1)
        let fixed = try await build([try day("Frostgen Good", date: "2026-11-27")], keep: 10)
        #expect(await places.check(now: 500) == .switched(generation: fixed.manifest.file))
        #expect(try await names(places, "frostgen good") == [658_225])
    }

    @Test("a half-copied generation (shorter than its manifest says) is waited for, not refused for good")
    func waitsForHalfCopied() async throws {
        _ = try await build([PlaceImportTests.extractPath], replace: true)
        let places = try PlacesInUse(path: directory, logger: logger)
        let next = try await build([try day("Frostgen Copy", date: "2026-11-28")])
        let path = (directory as NSString).appendingPathComponent(next.manifest.file)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        guard case .refused = await places.check(now: 600) else {
            Issue.record("a half file was not refused")
            return
        }
        try whole.write(to: URL(fileURLWithPath: path))
        #expect(await places.check(now: 700) == .switched(generation: next.manifest.file))
    }

    @Test("a link to a generation: a check follows it again and switches when it points to another generation")
    func followsLink() async throws {
        let first = try await build([PlaceImportTests.extractPath], replace: true)
        let link = temporary.path("places.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: (directory as NSString).appendingPathComponent(first.manifest.file))
        let places = try PlacesInUse(path: link, logger: logger)
        #expect(places.layout == .symlink)
        #expect(places.status.generation == first.manifest.file)
        let next = try await build([try day("Frostgen Link", date: "2026-11-29")])
        #expect(await places.check(now: 800) == .unchanged(generation: first.manifest.file))
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: (directory as NSString).appendingPathComponent(next.manifest.file))
        #expect(await places.check(now: 900) == .switched(generation: next.manifest.file))
        #expect(try await names(places, "frostgen link") == [658_225])
        // A link to a plain places file (no manifest beside it) is that file, updated in place.
        let plain = temporary.path("plain-places.sqlite")
        _ = try PlacesDatabase(path: plain)
        let plainLink = temporary.path("plain-link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: plainLink, withDestinationPath: plain)
        let linked = try PlacesInUse(path: plainLink, logger: logger)
        #expect(linked.layout == .file && linked.status.generation == nil)
    }

    @Test("a build keeps the newest generations and deletes older ones; an empty directory cannot be served")
    func prunesAndRefusesEmpty() async throws {
        #expect(throws: PlaceGenerationError.self) { try PlacesInUse(path: directory, logger: logger) }
        _ = try await build([PlaceImportTests.extractPath], replace: true, keep: 2)
        _ = try await build([try day("Frostgen A", date: "2026-11-21")], keep: 2)
        let third = try await build([try day("Frostgen B", date: "2026-11-22")], keep: 2)
        #expect(third.pruned.count == 1)
        #expect(try files().filter { $0.hasSuffix(".sqlite") }.count == 2)
    }
}

extension PlacesInUse.CheckResult {
    /// The reason of a refusal ("" otherwise).
    var reason: String {
        if case .refused(_, let reason) = self { return reason }
        return ""
    }
}
