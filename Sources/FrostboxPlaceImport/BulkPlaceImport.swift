import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
import Foundation
import GRDB
import Logging

/// A bulk import: this thread reads, parses and folds the files; a writer thread stages
/// them (so the two cores overlap); then the importer builds the name tables and swaps them
/// in (`GRDBPlaceImporter`).
///
/// Alternate names files are read first and held in memory by place, because a place's
/// searchable names depend on them (`Place.nameForms`): each place of the dumps is folded
/// with its alternate names attached. Stored places that this import does not carry but
/// whose alternate names it changes are read back and re-indexed the same way. When the
/// database already holds alternate names and this import adds to it (no `--replace`), the
/// stored ones are loaded too, so that a re-imported place keeps them.
struct BulkPlaceImport {
    let files: [GeoNamesFile]
    let options: PlaceImportOptions
    let database: PlacesDatabase
    let logger: Logger
    let progress: @Sendable (PlaceImportProgress) -> Void
    let start: ContinuousClock.Instant

    enum Item: Sendable {
        case places(PlaceBatch)
        case alternates([AlternateName])
        case admin1([Admin1Division])
        case countries([CountryInfo])
    }

    func elapsed() -> Double { (ContinuousClock.now - start).inSeconds }

    func run() throws -> PlaceImportSummary {
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
                    case .alternates(let alternates): try writingImporter.addAlternateNames(alternates)
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
            // Alternate names first: the places' names depend on them.
            let ordered = files.filter { $0.kind == .alternateNames } + files.filter { $0.kind != .alternateNames }
            var book = AlternateNameBook()
            let totalBytes = try ordered.filter { $0.kind == .geonames || $0.kind == .alternateNames }
                .reduce(Int64(0)) { $0 + (try $1.totalBytes()) }
            var bytesBefore: Int64 = 0
            var lastReport = ContinuousClock.now
            func report(_ bytes: Int64) {
                let now = ContinuousClock.now
                guard now - lastReport >= .milliseconds(200) else { return }
                lastReport = now
                progress(PlaceImportProgress(
                    rowsRead: summary.rowsRead, bytesRead: bytes, totalBytes: totalBytes, elapsedSeconds: elapsed()))
            }
            if !options.replace {
                try book.loadStored(from: database)
            }
            var batch = PlaceBatch()
            func flush() throws {
                guard !batch.isEmpty else { return }
                guard queue.put(.places(batch)) else { throw writerFailure() }
                batch = PlaceBatch()
            }
            for file in ordered {
                let name = file.url.lastPathComponent
                var bytesInFile: Int64 = 0
                switch file.kind {
                case .admin1:
                    let divisions = try GeoNamesTables.admin1(file)
                    summary.admin1Read += divisions.count
                    guard queue.put(.admin1(divisions)) else { throw writerFailure() }
                case .countries:
                    let countries = try GeoNamesTables.countries(file)
                    summary.countriesRead += countries.count
                    guard queue.put(.countries(countries)) else { throw writerFailure() }
                case .alternateNames:
                    var chunk: [AlternateName] = []
                    try file.forEachLine(progress: { bytesInFile = $0 }) { line, number in
                        summary.rowsRead += 1
                        do throws(GeoNamesSkipReason) {
                            let alternate = try GeoNamesUpdateRows.alternateName(line)
                            book.add(alternate)
                            chunk.append(alternate)
                            summary.alternatesRead += 1
                        } catch {
                            summary.skip(error, file: name, line: number)
                        }
                        if chunk.count >= options.batchSize {
                            guard queue.put(.alternates(chunk)) else { throw writerFailure() }
                            chunk = []
                            report(bytesBefore + bytesInFile)
                        }
                    }
                    if !chunk.isEmpty, !queue.put(.alternates(chunk)) { throw writerFailure() }
                case .geonames:
                    try file.forEachLine(progress: { bytesInFile = $0 }) { line, number in
                        summary.rowsRead += 1
                        do throws(GeoNamesSkipReason) {
                            var place = try GeoNamesRow.parse(line)
                            if options.keeps(place) {
                                place.alternates = book.carried(by: place.id)
                                batch.append(place)
                                summary.accepted += 1
                            } else {
                                summary.filtered += 1
                            }
                        } catch {
                            summary.skip(error, file: name, line: number)
                        }
                        if batch.count >= options.batchSize {
                            try flush()
                            report(bytesBefore + bytesInFile)
                        }
                    }
                case .deletes, .alternateNameDeletes:
                    continue  // applied in place after the bulk import
                }
                bytesBefore += bytesInFile
            }
            // Stored places whose alternate names this import changes, but which it does not
            // carry itself: re-indexed with their new names.
            for ids in book.changedButNotCarried().chunks(of: 500) {
                for place in try storedPlaces(ids) {
                    var place = place
                    place.alternates = book.carried(by: place.id)
                    batch.append(place)
                    summary.reindexed += 1
                    if batch.count >= options.batchSize { try flush() }
                }
            }
            try flush()
            progress(PlaceImportProgress(
                rowsRead: summary.rowsRead, bytesRead: bytesBefore, totalBytes: totalBytes, elapsedSeconds: elapsed(),
                phase: "building indexes"))
            queue.close()
            try writer.join()
            // Swapping in an empty import would only drop places (all of them with --replace).
            if summary.accepted + summary.alternatesRead == 0 && summary.admin1Read + summary.countriesRead == 0 {
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
        return summary
    }

    /// Stored places by id (without alternate names).
    func storedPlaces(_ ids: ArraySlice<Int64>) throws -> [Place] {
        try database.pool.read { db in
            try ids.compactMap { id in try GRDBPlaceUpdater.storedPlace(db, id: id) }
        }
    }
}

/// Alternate names by place during a bulk import: those stored (when the import adds to
/// them) and those read from its files, the files' winning by alternateNameId.
struct AlternateNameBook {
    private var byPlace: [Int64: [AlternateName]] = [:]
    /// Places with alternate names from this import's files.
    private var changed = Set<Int64>()
    /// Of those, places carried by this import's dumps.
    private var carried = Set<Int64>()

    /// Loads every stored alternate name (nothing to do when none are stored).
    mutating func loadStored(from database: PlacesDatabase) throws {
        byPlace = try database.pool.read { db in
            var stored: [Int64: [AlternateName]] = [:]
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM alternate_name)") == true else { return stored }
            for alternate in try GRDBPlaceUpdater.allAlternates(db) { stored[alternate.placeID, default: []].append(alternate) }
            return stored
        }
    }

    mutating func add(_ alternate: AlternateName) {
        var list = byPlace[alternate.placeID, default: []]
        list.removeAll { $0.id == alternate.id }
        list.append(alternate)
        byPlace[alternate.placeID] = list
        changed.insert(alternate.placeID)
    }

    /// The alternate names of a place the dumps carry.
    mutating func carried(by placeID: Int64) -> [AlternateName] {
        guard let list = byPlace[placeID] else { return [] }
        if changed.contains(placeID) { carried.insert(placeID) }
        return list.sorted { $0.id < $1.id }
    }

    /// Places given alternate names by the files but not carried by the dumps, in id order.
    func changedButNotCarried() -> [Int64] {
        changed.subtracting(carried).sorted()
    }
}

extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
