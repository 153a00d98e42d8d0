import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
import Foundation
import Logging

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

    public init() {}

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

/// The outcome of an import: counts, and for each skip reason how many lines and where
/// the first of them are.
public struct PlaceImportSummary: Sendable {
    /// Skipped lines of one reason.
    public struct Skips: Sendable {
        public var count = 0
        /// `file:line` of the first few.
        public var firstLines: [String] = []
    }

    public var rowsRead = 0
    /// Rows that passed the filters and were staged.
    public var accepted = 0
    /// Valid rows left out by `--feature-classes`, `--countries` or `--min-population`.
    public var filtered = 0
    public var skipped: [GeoNamesSkipReason: Skips] = [:]
    public var admin1Read = 0
    public var countriesRead = 0
    public var result: PlaceImportResult?
    public var elapsedSeconds = 0.0

    public var skippedCount: Int { skipped.values.reduce(0) { $0 + $1.count } }

    mutating func skip(_ reason: GeoNamesSkipReason, file: String, line: Int) {
        var entry = skipped[reason, default: Skips()]
        entry.count += 1
        if entry.firstLines.count < 5 { entry.firstLines.append("\(file):\(line)") }
        skipped[reason] = entry
    }

    /// The summary as the CLI prints it.
    public var text: String {
        var lines: [String] = []
        let rate = elapsedSeconds > 0 ? Int(Double(rowsRead) / elapsedSeconds) : 0
        lines.append("rows read: \(rowsRead) in \(String(format: "%.1f", elapsedSeconds)) s (\(rate) rows/s)")
        lines.append("imported: \(accepted)" + (filtered > 0 ? ", left out by filters: \(filtered)" : ""))
        if let result {
            lines.append("replaced existing: \(result.replaced); places stored: \(result.total); names indexed: \(result.names)")
            if admin1Read + countriesRead > 0 {
                lines.append("admin1 divisions stored: \(result.admin1); countries stored: \(result.countries)")
            }
        }
        lines.append("skipped: \(skippedCount)")
        for reason in skipped.keys.sorted() {
            let entry = skipped[reason]!
            lines.append("  \(reason.rawValue): \(entry.count) (first: \(entry.firstLines.joined(separator: ", ")))")
        }
        return lines.joined(separator: "\n")
    }
}

/// Why an import did not start.
public enum PlaceImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another import into the same database holds its lock.
    case alreadyRunning(String)
    /// The files held no usable row (`filtered`: valid places the filters left out; `skipped`:
    /// dirty lines). Nothing was swapped in: the stored places are unchanged, even with `--replace`.
    case nothingImported(filtered: Int, skipped: Int)

    public var description: String {
        switch self {
        case .alreadyRunning(let path): "another import into \(path) is running; wait for it to finish"
        case .nothingImported(let filtered, _) where filtered > 0:
            "nothing imported: the filters (--feature-classes, --countries, --min-population) left out all \(filtered) places read; the stored places are unchanged"
        case .nothingImported(_, let skipped):
            "nothing imported: the files hold no GeoNames rows (\(skipped) lines skipped); the stored places are unchanged"
        }
    }
}

/// Runs a GeoNames import: one thread reads, parses and folds; another writes to SQLite
/// (so the two cores overlap); then the importer builds the indexes and swaps them in.
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
            let duration = ContinuousClock.now - start
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
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
