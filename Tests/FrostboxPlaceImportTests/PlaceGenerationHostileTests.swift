import Foundation
import FrostboxDoubles
import FrostboxPlaceImport
import FrostboxSQLite
import Logging
import Testing

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

    func build(keep: Int = 1) async throws -> PlaceGenerationBuild.Outcome {
        var options = PlaceImportOptions()
        options.replace = true
        return try await PlaceGenerationBuild.run(
            paths: [PlaceImportTests.extractPath], options: options, directory: directory, keep: keep, logger: logger)
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
        try FileManager.default.copyItem(atPath: (directory as NSString).appendingPathComponent(good.manifest.file), toPath: evil)
        try plant(good.manifest, file: "places-zzz/../../outside/evil.sqlite", as: "places-zzz.json")
        #expect(throws: PlaceGenerationError.self) {
            try PlaceGenerationManifest.read(at: (directory as NSString).appendingPathComponent("places-zzz.json"))
        }
        let places = try PlacesInUse(path: directory, logger: logger)
        #expect(places.status.generation == good.manifest.file)
        #expect(await places.check(now: 100) == .unchanged(generation: good.manifest.file))
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
        try plant(good.manifest, file: "../outside/victim.txt", as: "places-0.json")
        try plant(good.manifest, file: "../outside/victimdir", as: "places-1.json")
        _ = try await build()
        _ = try await build()
        #expect(FileManager.default.fileExists(atPath: victim))
        #expect(FileManager.default.fileExists(atPath: (victimDirectory as NSString).appendingPathComponent("inner.txt")))
    }

    @Test("a generation file that is a symbolic link is refused, and a prune removes the link only, never its target")
    func refusesLinkedGenerationFile() async throws {
        let good = try await build(keep: 5)
        let path = (directory as NSString).appendingPathComponent(good.manifest.file)
        let moved = (outside as NSString).appendingPathComponent("moved.sqlite")
        try FileManager.default.moveItem(atPath: path, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: moved)
        #expect(throws: PlaceGenerationError.self) { try PlaceGenerationFile.open(good.manifest, in: directory) }
        #expect(throws: PlaceGenerationError.self) { try PlacesInUse(path: directory, logger: logger) }
        _ = try await build(keep: 5)
        _ = try await build(keep: 1)
        #expect(FileManager.default.fileExists(atPath: moved))
    }

    @Test("a manifest over 64 KiB is refused unread; a manifest naming another generation's file is refused")
    func refusesLargeAndForeignManifests() async throws {
        let good = try await build(keep: 5)
        let large = (directory as NSString).appendingPathComponent("places-zzz-large.json")
        var padded = good.manifest.encoded()
        padded.append(Data(repeating: UInt8(ascii: " "), count: PlaceGenerationManifest.maximumBytes))
        try padded.write(to: URL(fileURLWithPath: large))
        #expect {
            try PlaceGenerationManifest.read(at: large)
        } throws: { error in
            (error as? PlaceGenerationError)?.reason.contains("more than") == true
        }
        // The real generation under another manifest name: a manifest describes only its own stem.
        try plant(good.manifest, file: good.manifest.file, as: "places-zzz-other.json")
        #expect(throws: PlaceGenerationError.self) {
            try PlaceGenerationManifest.read(at: (directory as NSString).appendingPathComponent("places-zzz-other.json"))
        }
        #expect(PlaceGenerationManifest.all(in: directory).map(\.file) == [good.manifest.file])
        #expect(!PlaceGenerationManifest.isGenerationFileName("places-a/../b.sqlite"))
        #expect(!PlaceGenerationManifest.isGenerationFileName("places-.sqlite"))
        #expect(PlaceGenerationManifest.isGenerationFileName("places-20261126T054600123Z-0123456789ab.sqlite"))
    }
}
