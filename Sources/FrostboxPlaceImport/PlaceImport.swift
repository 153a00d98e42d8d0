import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
import Foundation
import Logging

/// The place import use case (`frostbox import geonames`, and seeding at `serve` start-up):
/// one thread reads, parses and folds GeoNames files; another writes to SQLite (so the two
/// cores overlap); then the importer builds the indexes and swaps them in. One import per
/// database at a time (a `FileRunLock` beside it).
public enum PlaceImport {
    /// Imports `paths` into `database`. Dirty lines are skipped and counted; unreadable files
    /// fail the whole import before anything is swapped in.
    public static func run(
        paths: [String], options: PlaceImportOptions, database: FrostboxDatabase, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void = { _ in }
    ) async throws -> PlaceImportSummary {
        let files = try paths.map { path throws -> GeoNamesFile in
            try GeoNamesFile(url: URL(fileURLWithPath: path))
        }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
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

    enum Item: Sendable {
        case places(PlaceBatch)
        case admin1([Admin1Division])
        case countries([CountryInfo])
    }

    static func runBlocking(
        files: [GeoNamesFile], options: PlaceImportOptions, database: FrostboxDatabase, logger: Logger,
        progress: @escaping @Sendable (PlaceImportProgress) -> Void
    ) throws -> PlaceImportSummary {
        let start = ContinuousClock.now
        func elapsed() -> Double {
            (ContinuousClock.now - start).inSeconds
        }
        // One import per database at a time: a second one would drop the first one's staged
        // tables and run files. The kernel releases the lock when the process dies.
        let lock = FileRunLock(path: database.path + ".import-lock")
        guard lock.tryLock() else { throw PlaceImportError.alreadyRunning(database.path) }
        defer { lock.unlock() }
        let importer = GRDBPlaceImporter(database: database, replace: options.replace, logger: logger)
        try importer.begin()
        let queue = BlockingQueue<Item>(capacity: 4)
        // The importer is used only by this thread until `join()` returns.
        nonisolated(unsafe) let writingImporter = importer
        let writer = WorkerThread(name: "frostbox-import-write") {
            while let item = queue.take() {
                do {
                    switch item {
                    case .places(let batch): try writingImporter.add(batch)
                    case .admin1(let divisions): try writingImporter.addAdmin1(divisions)
                    case .countries(let countries): try writingImporter.addCountries(countries)
                    }
                } catch {
                    queue.fail()
                    throw error
                }
            }
        }
        /// Why the writer refused more work (it stopped with an error).
        func writerFailure() -> any Error {
            do {
                try writer.join()
            } catch {
                return error
            }
            return CancellationError()
        }

        var summary = PlaceImportSummary()
        do {
            let totalBytes = try files.filter { $0.kind == .geonames }.reduce(Int64(0)) { $0 + (try $1.totalBytes()) }
            var bytesBefore: Int64 = 0
            var lastReport = ContinuousClock.now
            for file in files {
                let name = file.url.lastPathComponent
                switch file.kind {
                case .admin1:
                    let divisions = try GeoNamesTables.admin1(file)
                    summary.admin1Read += divisions.count
                    guard queue.put(.admin1(divisions)) else { throw writerFailure() }
                case .countries:
                    let countries = try GeoNamesTables.countries(file)
                    summary.countriesRead += countries.count
                    guard queue.put(.countries(countries)) else { throw writerFailure() }
                case .geonames:
                    var batch = PlaceBatch()
                    var bytesInFile: Int64 = 0
                    try file.forEachLine(progress: { bytesInFile = $0 }) { line, number in
                        summary.rowsRead += 1
                        do throws(GeoNamesSkipReason) {
                            let place = try GeoNamesRow.parse(line)
                            if options.keeps(place) {
                                batch.append(place)
                                summary.accepted += 1
                            } else {
                                summary.filtered += 1
                            }
                        } catch {
                            summary.skip(error, file: name, line: number)
                        }
                        if batch.count >= options.batchSize {
                            guard queue.put(.places(batch)) else { throw writerFailure() }
                            batch = PlaceBatch()
                            let now = ContinuousClock.now
                            if now - lastReport >= .milliseconds(200) {
                                lastReport = now
                                progress(PlaceImportProgress(
                                    rowsRead: summary.rowsRead, bytesRead: bytesBefore + bytesInFile,
                                    totalBytes: totalBytes, elapsedSeconds: elapsed()))
                            }
                        }
                    }
                    if !batch.isEmpty, !queue.put(.places(batch)) { throw writerFailure() }
                    bytesBefore += bytesInFile
                }
            }
            progress(PlaceImportProgress(
                rowsRead: summary.rowsRead, bytesRead: bytesBefore, totalBytes: totalBytes, elapsedSeconds: elapsed(),
                phase: "building indexes"))
            queue.close()
            try writer.join()
            // Swapping in an empty import would only drop places (all of them with --replace).
            if summary.accepted == 0 && summary.admin1Read + summary.countriesRead == 0 {
                throw PlaceImportError.nothingImported(filtered: summary.filtered, skipped: summary.skippedCount)
            }
            summary.result = try importer.finish { phase in
                progress(PlaceImportProgress(
                    rowsRead: summary.rowsRead, bytesRead: totalBytes, totalBytes: totalBytes, elapsedSeconds: elapsed(), phase: phase))
            }
        } catch {
            queue.close()
            try? writer.join()
            importer.abandon()
            throw error
        }
        summary.elapsedSeconds = elapsed()
        logger.info(
            "places imported",
            metadata: [
                "rows": "\(summary.rowsRead)", "imported": "\(summary.accepted)", "skipped": "\(summary.skippedCount)",
                "seconds": "\(String(format: "%.1f", summary.elapsedSeconds))",
            ])
        return summary
    }

    /// Imports the bundled extract when no place is stored yet (first start of `serve`).
    /// A missing file is logged and ignored: the service runs without place search data.
    public static func seedIfEmpty(path: String, database: FrostboxDatabase, logger: Logger) async {
        do {
            guard try await GRDBPlaceIndex(database: database).isEmpty() else { return }
            guard FileManager.default.isReadableFile(atPath: path) else {
                logger.warning("no places stored and the seed file is missing; place search stays empty", metadata: ["path": "\(path)"])
                return
            }
            let summary = try await run(paths: [path], options: PlaceImportOptions(), database: database, logger: logger)
            logger.info("seeded places", metadata: ["path": "\(path)", "places": "\(summary.accepted)"])
        } catch {
            logger.error("seeding places failed; place search stays empty", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
