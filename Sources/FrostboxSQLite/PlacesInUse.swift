import Foundation
import Logging
import Synchronization

/// The places file searches read now, and the switch to a newer generation.
///
/// `places.path` is one of three things:
/// - a plain places file, updated in place (imports write into it; searches see each
///   commit at once): it is never switched;
/// - a symbolic link to a generation file (`places-….sqlite` beside its manifest): a check
///   follows the link again and switches when it points elsewhere;
/// - a directory of generations: a check switches to the newest complete one. A path ending
///   in `/` always names one, and is created (0700) when missing and its parent exists: it
///   is never taken for a places file.
///
/// A candidate is opened and checked (`PlaceGenerationFile.open`) before any search sees
/// it; a bad one is refused with one error log line and never tried again, and the server
/// keeps the places it has. Searches that started on the previous file finish on it; it
/// is closed when the last of them lets go of it.
public final class PlacesInUse: Sendable {
    /// How `places.path` is laid out.
    public enum Layout: String, Sendable {
        case file, symlink, directory
    }

    /// The generation in use and when it was switched to.
    public struct Status: Sendable, Equatable {
        /// The generation's file name; nil for a plain places file.
        public var generation: String?
        /// When the generation was built (UTC epoch seconds, from its manifest).
        public var createdAt: Int64?
        /// When the server switched to it (UTC epoch seconds); nil for the one it started with.
        public var switchedAt: Int64?
        /// Switches since start.
        public var switches: Int
        /// Generations refused since start.
        public var refusals: Int = 0
    }

    /// What a check found.
    public enum CheckResult: Sendable, Equatable {
        case unchanged(generation: String?)
        case switched(generation: String)
        /// The newest candidate was refused (this check or an earlier one); the server keeps
        /// what it had.
        case refused(generation: String, reason: String)
    }

    struct State {
        var database: PlacesDatabase
        var manifest: PlaceGenerationManifest?
        var status: Status
        /// Generations refused once, by file name, with the reason.
        var refused: [String: String] = [:]
        /// Incomplete generations already logged (logged once, looked at again each check).
        var waiting: Set<String> = []
    }

    public let path: String
    public let layout: Layout
    private let state: Mutex<State>
    private let checks = DispatchQueue(label: "frostbox.places.generations")
    private let logger: Logger

    /// Opens what `path` names: a plain places file (created and migrated if needed), or
    /// the generation a link points to, or the newest complete generation in a directory
    /// (throws when there is none that passes its checks).
    public init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        let layout = Self.layout(of: path)
        self.layout = layout
        guard layout != .file else {
            state = Mutex(State(database: try PlacesDatabase(path: path, logger: logger), status: Status(switches: 0)))
            return
        }
        if layout == .directory { try Self.createDirectoryIfMissing(path) }
        let (opened, refused) = Self.openNewest(path, layout: layout, logger: logger)
        guard let opened else {
            throw PlaceGenerationError(
                path, "no complete places generation here (build one with `frostbox import geonames FILE… --build \(path)`)")
        }
        let (database, manifest) = opened
        state = Mutex(
            State(
                database: database, manifest: manifest,
                status: Status(generation: manifest.file, createdAt: manifest.createdAt, switches: 0, refusals: refused.count), refused: refused))
    }

    /// The newest generation that passes its checks, and those refused on the way.
    static func openNewest(
        _ path: String, layout: Layout, logger: Logger
    ) -> (opened: (PlacesDatabase, PlaceGenerationManifest)?, refused: [String: String]) {
        var refused: [String: String] = [:]
        for (manifest, directory) in candidates(path, layout: layout, newerThan: nil) {
            do throws(PlaceGenerationError) {
                let database = try PlaceGenerationFile.open(manifest, in: directory)
                logger.notice("serving places generation", metadata: ["generation": "\(manifest.file)", "counts": "\(manifest.counts)"])
                return ((database, manifest), refused)
            } catch {
                logger.error("refusing places generation", metadata: ["generation": "\(manifest.file)", "reason": "\(error.reason)"])
                refused[manifest.file] = error.reason
            }
        }
        return (nil, refused)
    }

    /// The places file new searches read.
    public var database: PlacesDatabase { state.withLock { $0.database } }

    public var status: Status { state.withLock { $0.status } }

    /// Looks for a newer generation and switches to it once it passes its checks. Checks
    /// run one at a time, off Swift's cooperative threads (`quick_check` reads the file).
    public func check(now: Int64) async -> CheckResult {
        await withCheckedContinuation { continuation in
            checks.async { continuation.resume(returning: self.checkBlocking(now: now)) }
        }
    }

    func checkBlocking(now: Int64) -> CheckResult {
        let (current, refused) = state.withLock { ($0.manifest, $0.refused) }
        guard layout != .file else { return .unchanged(generation: nil) }
        var firstRefusal: CheckResult?
        for (manifest, directory) in Self.candidates(path, layout: layout, newerThan: current) {
            if let reason = refused[manifest.file] {
                firstRefusal = firstRefusal ?? .refused(generation: manifest.file, reason: reason)
                continue
            }
            do throws(PlaceGenerationError) {
                let database = try PlaceGenerationFile.open(manifest, in: directory)
                state.withLock { state in
                    state.database = database
                    state.manifest = manifest
                    state.status = Status(
                        generation: manifest.file, createdAt: manifest.createdAt, switchedAt: now, switches: state.status.switches + 1,
                        refusals: state.status.refusals)
                }
                logger.notice(
                    "switched places generation",
                    metadata: ["generation": "\(manifest.file)", "previous": "\(current?.file ?? "-")", "counts": "\(manifest.counts)"])
                return .switched(generation: manifest.file)
            } catch {
                // An incomplete file is looked at again next time (a copy may still be arriving).
                let firstTime = state.withLock { state in
                    guard !error.incomplete else { return state.waiting.insert(manifest.file).inserted }
                    state.refused[manifest.file] = error.reason
                    state.status.refusals += 1
                    return true
                }
                if firstTime {
                    logger.error(
                        "refusing places generation; searches keep the current one",
                        metadata: ["generation": "\(manifest.file)", "reason": "\(error.reason)", "current": "\(current?.file ?? "-")"])
                }
                firstRefusal = firstRefusal ?? .refused(generation: manifest.file, reason: error.reason)
            }
        }
        return firstRefusal ?? .unchanged(generation: current?.file)
    }

    /// A link counts as a link to a generation only when a manifest stands beside its
    /// target; a link to a plain places file (or to a directory) is that file (directory).
    public static func layout(of path: String) -> Layout {
        if path.hasSuffix("/") { return .directory }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return .directory }
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
            let manifest = target.deletingPathExtension().appendingPathExtension("json").path
            if FileManager.default.fileExists(atPath: manifest) { return .symlink }
        }
        return .file
    }

    /// Creates the generations directory `path` names, private to the service's user (0700),
    /// when it does not exist and its parent does.
    static func createDirectoryIfMissing(_ path: String) throws(PlaceGenerationError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard manager.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PlaceGenerationError(path, "the generations directory's parent \(parent) does not exist")
        }
        do {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            // Whatever the umask made of it.
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        } catch {
            throw PlaceGenerationError(path, "cannot create the generations directory: \(error.localizedDescription)")
        }
    }

    /// The generations to try, newest first, with their directory: in a directory, every
    /// manifest newer than `current`; behind a link, the manifest beside its target when that
    /// is not `current`. Manifests that cannot be read are left out (one may be half-written).
    static func candidates(_ path: String, layout: Layout, newerThan current: PlaceGenerationManifest?) -> [(PlaceGenerationManifest, String)] {
        switch layout {
        case .file:
            return []
        case .symlink:
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
            let directory = target.deletingLastPathComponent().path
            let manifestPath = target.deletingPathExtension().appendingPathExtension("json").path
            guard target.lastPathComponent != current?.file,
                let manifest = try? PlaceGenerationManifest.read(at: manifestPath), manifest.file == target.lastPathComponent
            else { return [] }
            return [(manifest, directory)]
        case .directory:
            let currentFile = current?.file ?? ""
            return PlaceGenerationManifest.all(in: path).filter { $0.file > currentFile }.map { ($0, path) }
        }
    }
}
