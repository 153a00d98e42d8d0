import Foundation
import FrostboxDoubles
import FrostboxSQLite
import Logging
import Testing

@testable import FrostboxPlaceImport

/// A generations directory is a shared volume or an rsync target, written by others: what a
/// manifest says must never reach outside the directory (issue #43, item 2).
@Suite("Places generations: a hostile directory")
struct PlaceGenerationHostileTests {
    let temporary: TemporaryDirectory
    var directory: String { temporary.path("generations") }
    var outside: String { temporary.path("outside") }
    let logger = Logger(label: "test")

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-hostile")
        for folder in ["generations", "outside"] {
            try FileManager.default.createDirectory(atPath: temporary.path(folder), withIntermediateDirectories: true)
        }
    }

    /// One generation of the extract, built once for the suite (an import is the costly part).
    static let built = Task {
        let source = try TemporaryDirectory(prefix: "frostbox-hostile-source")
        var options = PlaceImportOptions()
        options.replace = true
        let outcome = try await PlaceGenerationBuild.run(
            paths: [PlaceImportTests.extractPath], options: options, directory: source.path(""), keep: 1, logger: Logger(label: "test"))
        return (source, outcome.manifest)
    }

    /// The suite's generation copied into this test's directory: its manifest.
    func build() async throws -> PlaceGenerationManifest {
        let (source, manifest) = try await Self.built.value
        let stem = (manifest.file as NSString).deletingPathExtension
        for name in [manifest.file, stem + ".json"] {
            try FileManager.default.copyItem(atPath: source.path(name), toPath: (directory as NSString).appendingPathComponent(name))
        }
        return manifest
    }

    /// A generation whose manifest sorts after every real one (a stem the build would not
    /// make, but a sound one): the prune's newest, so that the real one is the older.
    func newer(than manifest: PlaceGenerationManifest) throws {
        let stem = "places-99999999T000000000Z-ffffffffffff"
        var next = manifest
        next.file = stem + ".sqlite"
        try FileManager.default.copyItem(
            atPath: (directory as NSString).appendingPathComponent(manifest.file), toPath: (directory as NSString).appendingPathComponent(next.file))
        try next.encoded().write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(stem + ".json")))
    }

    /// Writes `manifest` with its `file` replaced by `file`, under the name `name`.
    func plant(_ manifest: PlaceGenerationManifest, file: String, as name: String) throws {
        var hostile = manifest
        hostile.file = file
        try hostile.encoded().write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(name)))
    }

    @Test("a manifest naming a file outside the directory is never served, even when that file is a sound generation")
    func refusesTraversalOnServe() async throws {
        let good = try await build()
        // A sound copy of the generation outside the directory, and a manifest that sorts newest pointing at it.
        let evil = (outside as NSString).appendingPathComponent("evil.sqlite")
        try FileManager.default.copyItem(atPath: (directory as NSString).appendingPathComponent(good.file), toPath: evil)
        try plant(good, file: "places-zzz/../../outside/evil.sqlite", as: "places-zzz.json")
        #expect(throws: PlaceGenerationError.self) {
            try PlaceGenerationManifest.read(at: (directory as NSString).appendingPathComponent("places-zzz.json"))
        }
        let places = try PlacesInUse(path: directory, logger: logger)
        #expect(places.status.generation == good.file)
        #expect(await places.check(now: 100) == .unchanged(generation: good.file))
        #expect(!FileManager.default.fileExists(atPath: evil + "-wal") && !FileManager.default.fileExists(atPath: evil + "-shm"))
    }

    @Test("pruning old generations deletes nothing a hostile manifest names outside the directory, and never recurses")
    func pruneStaysInside() async throws {
        let good = try await build()
        let victim = (outside as NSString).appendingPathComponent("victim.txt")
        let victimDirectory = (outside as NSString).appendingPathComponent("victimdir")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createDirectory(atPath: victimDirectory, withIntermediateDirectories: true)
        try Data("me too".utf8).write(to: URL(fileURLWithPath: (victimDirectory as NSString).appendingPathComponent("inner.txt")))
        // Oldest by name, so a prune reaches them first.
        try plant(good, file: "../outside/victim.txt", as: "places-0.json")
        try plant(good, file: "../outside/victimdir", as: "places-1.json")
        try newer(than: good)
        let pruned = PlaceGenerationBuild.prune(directory, keep: 1)
        #expect(pruned == [good.file])
        #expect(FileManager.default.fileExists(atPath: victim))
        #expect(FileManager.default.fileExists(atPath: (victimDirectory as NSString).appendingPathComponent("inner.txt")))
    }

    @Test("a generation file that is a symbolic link is refused, and a prune removes the link only, never its target")
    func refusesLinkedGenerationFile() async throws {
        let good = try await build()
        let path = (directory as NSString).appendingPathComponent(good.file)
        let moved = (outside as NSString).appendingPathComponent("moved.sqlite")
        try FileManager.default.moveItem(atPath: path, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: moved)
        #expect(throws: PlaceGenerationError.self) { try PlaceGenerationFile.open(good, in: directory) }
        #expect(throws: PlaceGenerationError.self) { try PlacesInUse(path: directory, logger: logger) }
        try FileManager.default.copyItem(atPath: moved, toPath: (directory as NSString).appendingPathComponent("real.sqlite"))
        var sound = good
        sound.file = "real.sqlite"
        try newer(than: sound)
        _ = PlaceGenerationBuild.prune(directory, keep: 1)
        #expect(DirectoryEntry.kind(at: path) == .link, "the link is not removed by a prune")
        #expect(FileManager.default.fileExists(atPath: moved))
    }

    @Test("a manifest over 64 KiB is refused unread; a manifest naming another generation's file is refused")
    func refusesLargeAndForeignManifests() async throws {
        let good = try await build()
        let large = (directory as NSString).appendingPathComponent("places-zzz-large.json")
        var padded = good.encoded()
        padded.append(Data(repeating: UInt8(ascii: " "), count: PlaceGenerationManifest.maximumBytes))
        try padded.write(to: URL(fileURLWithPath: large))
        #expect {
            try PlaceGenerationManifest.read(at: large)
        } throws: { error in
            (error as? PlaceGenerationError)?.reason.contains("more than") == true
        }
        // The real generation under another manifest name: a manifest describes only its own stem.
        try plant(good, file: good.file, as: "places-zzz-other.json")
        #expect(throws: PlaceGenerationError.self) {
            try PlaceGenerationManifest.read(at: (directory as NSString).appendingPathComponent("places-zzz-other.json"))
        }
        #expect(PlaceGenerationManifest.all(in: directory).map(\.file) == [good.file])
        #expect(!PlaceGenerationManifest.isGenerationFileName("places-a/../b.sqlite"))
        #expect(!PlaceGenerationManifest.isGenerationFileName("places-.sqlite"))
        #expect(PlaceGenerationManifest.isGenerationFileName("places-20261126T054600123Z-0123456789ab.sqlite"))
    }
}
