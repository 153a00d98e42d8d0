import Crypto
import Foundation
import FrostboxSQLite
import Logging

/// `frostbox import geonames FILE… --build DIR`: writes a new places generation into `DIR`
/// instead of changing a places file a server reads.
///
/// The import runs into a private temporary file in `DIR` (`.building-….sqlite`): empty for
/// `--replace`, otherwise a copy of the newest complete generation, so a day's changes are
/// applied to a copy (SQLite has no copy-on-write of pages; the copy costs a sequential
/// read and write of the file). A rebuild is then `VACUUM`ed and `ANALYZE`d without a
/// journal; every generation gets WAL mode recorded, is fsynced, hashed (SHA-256), renamed
/// to `places-<stamp>-<hash>.sqlite` and described by its manifest, written last (atomically,
/// then the directory fsynced): servers watching `DIR` take a generation only once its
/// manifest is there. Generations beyond the newest `keep` are deleted.
public enum PlaceGenerationBuild {
    /// What a build made.
    public struct Outcome: Sendable {
        public var manifest: PlaceGenerationManifest
        public var summary: PlaceImportSummary
        /// The generation the import started from (nil: an empty file).
        public var base: String?
        /// Older generations deleted.
        public var pruned: [String]
    }

    public static func run(
        paths: [String], options: PlaceImportOptions, directory: String, keep: Int, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void = { _ in }
    ) async throws -> Outcome {
        let lock = FileRunLock(path: (directory as NSString).appendingPathComponent(".places-build.lock"))
        guard lock.tryLock() else { throw PlaceGenerationError(directory, "another build into this directory is running") }
        defer { lock.unlock() }
        let base = options.replace ? nil : newestSound(in: directory, logger: logger)
        let temporary = (directory as NSString).appendingPathComponent(".building-\(UUID().uuidString).sqlite")
        defer { removeLeftovers(of: temporary) }
        if let base {
            try FileManager.default.copyItem(atPath: (directory as NSString).appendingPathComponent(base.file), toPath: temporary)
        }
        let database = try PlacesDatabase(path: temporary, logger: logger)
        let summary = try await PlaceImport.run(paths: paths, options: options, database: database, logger: logger, progress: progress)
        try database.pool.close()
        let sealed = try PlaceGenerationFile.seal(temporary, compact: base == nil || summary.result != nil)
        let (bytes, sha256) = try syncAndHash(temporary)
        let createdAt = Int64(Date().timeIntervalSince1970 * 1_000)
        let stem = PlaceGenerationManifest.stem(createdAtMilliseconds: createdAt, sha256: sha256)
        let manifest = PlaceGenerationManifest(
            file: stem + ".sqlite", createdAt: createdAt / 1_000, migrations: sealed.migrations, counts: sealed.counts, bytes: bytes, sha256: sha256)
        try publish(temporary, manifest: manifest, in: directory)
        let pruned = prune(directory, keep: keep)
        logger.notice("built places generation", metadata: ["generation": "\(manifest.file)", "base": "\(base?.file ?? "-")"])
        return Outcome(manifest: manifest, summary: summary, base: base?.file, pruned: pruned)
    }

    /// The newest generation in `directory` that passes the checks a server makes
    /// (`PlaceGenerationFile.open`): a build never starts from a damaged file.
    static func newestSound(in directory: String, logger: Logger) -> PlaceGenerationManifest? {
        for manifest in PlaceGenerationManifest.all(in: directory) {
            let database: PlacesDatabase
            do throws(PlaceGenerationError) {
                database = try PlaceGenerationFile.open(manifest, in: directory)
            } catch {
                logger.warning("not building on a places generation that fails its checks", metadata: ["reason": "\(error)"])
                continue
            }
            try? database.pool.close()
            return manifest
        }
        return nil
    }

    /// fsyncs the file and returns its size and SHA-256.
    static func syncAndHash(_ path: String) throws -> (Int64, String) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw PlaceGenerationError(path, "cannot open the built file") }
        defer { try? handle.close() }
        try handle.synchronize()
        var hasher = SHA256()
        var bytes: Int64 = 0
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            bytes += Int64(chunk.count)
        }
        return (bytes, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }

    /// Renames the built file into place, then writes the manifest beside it (a temporary
    /// name, fsynced, renamed), then fsyncs the directory.
    static func publish(_ temporary: String, manifest: PlaceGenerationManifest, in directory: String) throws {
        let target = (directory as NSString).appendingPathComponent(manifest.file)
        try moveIntoPlace(temporary, to: target)
        let manifestPath = (target as NSString).deletingPathExtension + ".json"
        let manifestTemporary = (directory as NSString).appendingPathComponent(".\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: manifestTemporary, contents: manifest.encoded()),
            let handle = FileHandle(forUpdatingAtPath: manifestTemporary)
        else { throw PlaceGenerationError(manifestTemporary, "cannot write the manifest") }
        try handle.synchronize()
        try handle.close()
        try moveIntoPlace(manifestTemporary, to: manifestPath)
        let directoryDescriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// `rename(2)`: atomic within the directory.
    static func moveIntoPlace(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else {
            throw PlaceGenerationError(to, "cannot rename \(from) into place: \(String(cString: strerror(errno)))")
        }
    }

    /// Deletes the generations after the newest `keep` (manifest first, so no server takes
    /// one that is going). A server still searching a deleted one finishes on it: the file
    /// lives on until its last descriptor closes. Only regular files directly in `directory`
    /// are removed (`unlink`, never recursive, never through a link); manifests that name
    /// anything but their own generation were left out by `PlaceGenerationManifest.all`.
    static func prune(_ directory: String, keep: Int) -> [String] {
        let old = PlaceGenerationManifest.all(in: directory).dropFirst(max(keep, 1))
        for manifest in old where PlaceGenerationManifest.isGenerationFileName(manifest.file) {
            let path = (directory as NSString).appendingPathComponent(manifest.file)
            DirectoryEntry.removeRegularFile(at: (path as NSString).deletingPathExtension + ".json")
            for suffix in ["", "-wal", "-shm"] { DirectoryEntry.removeRegularFile(at: path + suffix) }
        }
        return old.map(\.file)
    }

    /// Removes what a build leaves beside its temporary file when it fails (after success
    /// the file itself was renamed away).
    static func removeLeftovers(of temporary: String) {
        for suffix in ["", "-wal", "-shm", ".import-lock"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        try? FileManager.default.removeItem(atPath: temporary + ".import-runs")
    }
}
