import CFrostboxSystem
import Foundation
import FrostboxBundledPlaces
import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
import Logging

/// The place import use case (`frostbox import geonames`, and seeding at `serve` start-up).
///
/// Two ways to apply files, with the same end state:
/// - **bulk** (a first import, `--replace`, or more than `incrementalLimitBytes` of place
///   and alternate-name rows): one thread reads, parses and folds the files, another writes
///   them to SQLite, then the importer builds new name tables and swaps them in;
/// - **in place** (a database that holds places, and files as small as a day's changes):
///   the rows are applied by id in one transaction and only the name rows that change are
///   written (`GRDBPlaceUpdater`).
/// Deletes (`deletes-…`, `alternateNamesDeletes-…`) are always applied in place. Searches
/// are answered from the previous places until either commits. One import per places file
/// at a time (a `FileRunLock` beside it).
public enum PlaceImport {
    /// Imports `paths` into `database`. Dirty lines are skipped and counted; unreadable files
    /// fail the whole import before anything is swapped in.
    public static func run(
        paths: [String], options: PlaceImportOptions, database: PlacesDatabase, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void = { _ in }
    ) async throws -> PlaceImportSummary {
        let files = try paths.map { path throws -> GeoNamesFile in
            try GeoNamesFile(url: URL(fileURLWithPath: path))
        }
        await slots.acquire()
        do {
            let summary = try await runOnThread(files: files, options: options, database: database, logger: logger, progress: progress)
            await slots.release()
            return summary
        } catch {
            await slots.release()
            throw error
        }
    }

    /// Imports that may run at once in one process. An import is heavy background work on
    /// the disk and the CPU; several at once (a seed beside a reload, a build beside both, or
    /// many servers in one test process) only thrash the disk that the service's own durable
    /// writes wait on, so the others wait their turn.
    static let slots = ImportSlots(limit: 2)

    /// The import on a thread of its own (off Swift's cooperative threads).
    static func runOnThread(
        files: [GeoNamesFile], options: PlaceImportOptions, database: PlacesDatabase, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void
    ) async throws -> PlaceImportSummary {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                // The import is background work: its threads (this one and those it starts)
                // yield the CPU and the disk to the service's. Linux nice values and I/O
                // priorities are per thread, inherited by the threads it starts.
                if options.backgroundPriority { PlaceImport.yieldToService() }
                continuation.resume(
                    with: Result {
                        try runBlocking(files: files, options: options, database: database, logger: logger, progress: progress)
                    })
            }
            thread.name = "frostbox-import-read"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    static func runBlocking(
        files: [GeoNamesFile], options: PlaceImportOptions, database: PlacesDatabase, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void
    ) throws -> PlaceImportSummary {
        let start = ContinuousClock.now
        // One import per database at a time: a second one would drop the first one's staged
        // tables and run files. The kernel releases the lock when the process dies.
        let lock = FileRunLock(path: database.path + ".import-lock")
        guard lock.tryLock() else { throw PlaceImportError.alreadyRunning(database.path) }
        defer { lock.unlock() }
        let rowFiles = files.filter { $0.kind == .geonames || $0.kind == .alternateNames }
        let rowBytes = try rowFiles.reduce(Int64(0)) { $0 + (try $1.totalBytes()) }
        let holdsPlaces = try database.holdsPlaces()
        let inPlace = !options.replace && holdsPlaces && rowBytes <= options.incrementalLimitBytes
        var summary: PlaceImportSummary
        if inPlace {
            summary = try applyInPlace(files: files, options: options, database: database, progress: progress, start: start)
        } else {
            let bulkFiles = files.filter { $0.kind != .deletes && $0.kind != .alternateNameDeletes }
            summary = PlaceImportSummary()
            if !bulkFiles.isEmpty {
                summary = try BulkPlaceImport(
                    files: bulkFiles, options: options, database: database, logger: logger, progress: progress, start: start
                ).run()
            }
            let deleteFiles = files.filter { $0.kind == .deletes || $0.kind == .alternateNameDeletes }
            if !deleteFiles.isEmpty {
                var changes = PlaceChanges()
                try read(deleteFiles, into: &changes, summary: &summary, options: options)
                summary.update = try GRDBPlaceUpdater(database: database).apply(changes)
            }
        }
        summary.elapsedSeconds = (ContinuousClock.now - start).inSeconds
        logger.info(
            "places imported",
            metadata: [
                "mode": "\(inPlace ? "in place" : "bulk")", "rows": "\(summary.rowsRead)", "imported": "\(summary.accepted)",
                "skipped": "\(summary.skippedCount)", "seconds": "\(String(format: "%.1f", summary.elapsedSeconds))",
            ])
        return summary
    }

    /// Lowers the calling thread's CPU (nice 10) and I/O (idle class) priority.
    static func yieldToService() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        _ = frostbox_ioprio_set_idle()
    }

    /// Reads every file into memory (they are small) and applies them in one transaction.
    static func applyInPlace(
        files: [GeoNamesFile], options: PlaceImportOptions, database: PlacesDatabase,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void, start: ContinuousClock.Instant
    ) throws -> PlaceImportSummary {
        var summary = PlaceImportSummary()
        var changes = PlaceChanges()
        try read(files, into: &changes, summary: &summary, options: options)
        // A quiet day's empty update files are a day without changes, not a mistake.
        let quietDay = summary.rowsRead == 0 && files.allSatisfy(\.isDailyUpdate)
        if changes.isEmpty && !quietDay {
            throw PlaceImportError.nothingImported(filtered: summary.filtered, skipped: summary.skippedCount)
        }
        progress(
            PlaceImportProgress(
                rowsRead: summary.rowsRead, bytesRead: 0, totalBytes: 0, elapsedSeconds: (ContinuousClock.now - start).inSeconds,
                phase: "applying in place"))
        summary.update = try GRDBPlaceUpdater(database: database).apply(changes)
        return summary
    }

    /// Parses files into `changes` (places through the filters; later rows of an id win).
    static func read(
        _ files: [GeoNamesFile], into changes: inout PlaceChanges, summary: inout PlaceImportSummary, options: PlaceImportOptions
    ) throws {
        for file in files {
            let name = file.url.lastPathComponent
            switch file.kind {
            case .admin1:
                changes.admin1 += try GeoNamesTables.admin1(file)
                summary.admin1Read = changes.admin1.count
            case .countries:
                changes.countries += try GeoNamesTables.countries(file)
                summary.countriesRead = changes.countries.count
            case .geonames:
                try file.forEachLine { line, number in
                    summary.rowsRead += 1
                    do throws(GeoNamesSkipReason) {
                        let place = try GeoNamesRow.parse(line)
                        if options.keeps(place) {
                            changes.places.append(place)
                            summary.accepted += 1
                        } else {
                            summary.filtered += 1
                        }
                    } catch {
                        summary.skip(error, file: name, line: number)
                    }
                }
            case .alternateNames:
                try file.forEachLine { line, number in
                    summary.rowsRead += 1
                    do throws(GeoNamesSkipReason) {
                        changes.alternates.append(try GeoNamesUpdateRows.alternateName(line))
                        summary.alternatesRead += 1
                    } catch {
                        summary.skip(error, file: name, line: number)
                    }
                }
            case .deletes, .alternateNameDeletes:
                try file.forEachLine { line, number in
                    summary.rowsRead += 1
                    do throws(GeoNamesSkipReason) {
                        let id = try GeoNamesUpdateRows.deletedID(line)
                        if file.kind == .deletes { changes.deletedPlaces.append(id) } else { changes.deletedAlternates.append(id) }
                        summary.deletesRead += 1
                    } catch {
                        summary.skip(error, file: name, line: number)
                    }
                }
            }
        }
        // A geonameid or alternateNameId twice: the last row wins, as in a bulk import.
        changes.places = lastByID(changes.places, id: \.id)
        changes.alternates = lastByID(changes.alternates, id: \.id)
    }

    static func lastByID<T>(_ rows: [T], id: (T) -> Int64) -> [T] {
        var last: [Int64: Int] = [:]
        for (index, row) in rows.enumerated() { last[id(row)] = index }
        return rows.enumerated().filter { last[id($0.element)] == $0.offset }.map(\.element)
    }

    /// Imports `seed` when no place is stored yet (first start of `serve`). A missing file is
    /// logged and ignored: the service runs without place search data. The bundled extract is
    /// unpacked to a directory of its own under `temporaryDirectory` while it is imported.
    public static func seedIfEmpty(
        _ seed: PlacesSeed, database: PlacesDatabase, logger: Logger,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) async {
        do {
            guard try await database.isEmpty() else { return }
            switch seed {
            case .bundled:
                let summary = try await withBundledExtract(in: temporaryDirectory) { path in
                    try await run(paths: [path], options: PlaceImportOptions(), database: database, logger: logger)
                }
                logger.info("seeded places", metadata: ["source": "bundled extract", "places": "\(summary.accepted)"])
            case .file(let path):
                guard FileManager.default.isReadableFile(atPath: path) else {
                    logger.warning("no places stored and the seed file is missing; place search stays empty", metadata: ["path": "\(path)"])
                    return
                }
                let summary = try await run(paths: [path], options: PlaceImportOptions(), database: database, logger: logger)
                logger.info("seeded places", metadata: ["path": "\(path)", "places": "\(summary.accepted)"])
            }
        } catch {
            logger.error("seeding places failed; place search stays empty", metadata: ["seed": "\(seed)", "error": "\(error)"])
        }
    }

    /// Calls `body` with the path of the bundled extract's archive, written to a directory of
    /// its own under `parent` and removed afterwards (the GeoNames reader reads files; the
    /// archive is 140 KB).
    static func withBundledExtract<T>(in parent: URL, _ body: (String) async throws -> T) async throws -> T {
        let directory = parent.appendingPathComponent("frostbox-seed-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(BundledPlaces.archiveName)
        try Data(BundledPlaces.archive).write(to: file)
        return try await body(file.path)
    }
}

/// Where `serve` takes its first places from when none are stored (`places.seed_path`).
public enum PlacesSeed: Sendable, Equatable, CustomStringConvertible {
    /// The extract compiled into the binary (`BundledPlaces`): works from any directory.
    case bundled
    /// A GeoNames file (`.txt` or `.zip`; relative paths against the working directory).
    case file(String)

    /// The `places.seed_path` setting: `bundled`, a file's path, or empty for no seed (nil).
    public init?(setting: String) {
        switch setting {
        case "": return nil
        case "bundled": self = .bundled
        default: self = .file(setting)
        }
    }

    public var description: String {
        switch self {
        case .bundled: "bundled extract"
        case .file(let path): path
        }
    }
}
