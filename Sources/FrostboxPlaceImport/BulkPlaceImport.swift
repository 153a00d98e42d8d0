import Foundation
import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
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
        let writer = Self.startWriter(importer, queue)
        do {
            var reader = BulkReader(import: self, queue: queue, writer: writer)
            try reader.readAll()
            var summary = reader.summary
            progress(
                PlaceImportProgress(
                    rowsRead: summary.rowsRead, bytesRead: reader.bytesBefore, totalBytes: reader.totalBytes, elapsedSeconds: elapsed(),
                    phase: "building indexes"))
            queue.close()
            try writer.join()
            // Swapping in an empty import would only drop places (all of them with --replace).
            if summary.accepted + summary.alternatesRead == 0 && summary.admin1Read + summary.countriesRead == 0 {
                throw PlaceImportError.nothingImported(filtered: summary.filtered, skipped: summary.skippedCount)
            }
            let totalBytes = reader.totalBytes
            let rowsRead = summary.rowsRead
            summary.result = try importer.finish { phase in
                progress(
                    PlaceImportProgress(
                        rowsRead: rowsRead, bytesRead: totalBytes, totalBytes: totalBytes, elapsedSeconds: elapsed(), phase: phase))
            }
            return summary
        } catch {
            queue.close()
            try? writer.join()
            importer.abandon()
            throw error
        }
    }

    /// The writer thread: stages what the queue brings until it is closed; on an error it
    /// refuses more work (`queue.fail()`) and `join()` throws the error.
    static func startWriter(_ importer: GRDBPlaceImporter, _ queue: BlockingQueue<Item>) -> WorkerThread {
        // The importer is used only by this thread until `join()` returns.
        nonisolated(unsafe) let writingImporter = importer
        return WorkerThread(name: "frostbox-import-write") {
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
    }
}

/// The reading side of a bulk import (this thread): files in order, alternate names first,
/// rows parsed, filtered and batched for the writer, progress reported.
struct BulkReader {
    let owner: BulkPlaceImport
    let queue: BlockingQueue<BulkPlaceImport.Item>
    let writer: WorkerThread
    var summary = PlaceImportSummary()
    var book = AlternateNameBook()
    var batch = PlaceBatch()
    /// Bytes of the files read before the current one.
    var bytesBefore: Int64 = 0
    var totalBytes: Int64 = 0
    var lastReport = ContinuousClock.now

    init(import owner: BulkPlaceImport, queue: BlockingQueue<BulkPlaceImport.Item>, writer: WorkerThread) {
        self.owner = owner
        self.queue = queue
        self.writer = writer
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

    func put(_ item: BulkPlaceImport.Item) throws {
        guard queue.put(item) else { throw writerFailure() }
    }

    mutating func report(_ bytes: Int64) {
        let now = ContinuousClock.now
        guard now - lastReport >= .milliseconds(200) else { return }
        lastReport = now
        owner.progress(
            PlaceImportProgress(
                rowsRead: summary.rowsRead, bytesRead: bytes, totalBytes: totalBytes, elapsedSeconds: owner.elapsed()))
    }

    mutating func flush() throws {
        guard !batch.isEmpty else { return }
        try put(.places(batch))
        batch = PlaceBatch()
    }

    mutating func readAll() throws {
        // Alternate names first: the places' names depend on them.
        let ordered = owner.files.filter { $0.kind == .alternateNames } + owner.files.filter { $0.kind != .alternateNames }
        totalBytes = try ordered.filter { $0.kind == .geonames || $0.kind == .alternateNames }.reduce(Int64(0)) { $0 + (try $1.totalBytes()) }
        if !owner.options.replace {
            try book.loadStored(from: owner.database)
        }
        for file in ordered {
            switch file.kind {
            case .admin1:
                let divisions = try GeoNamesTables.admin1(file)
                summary.admin1Read += divisions.count
                try put(.admin1(divisions))
            case .countries:
                let countries = try GeoNamesTables.countries(file)
                summary.countriesRead += countries.count
                try put(.countries(countries))
            case .alternateNames:
                bytesBefore += try readAlternateNames(file)
            case .geonames:
                bytesBefore += try readPlaces(file)
            case .deletes, .alternateNameDeletes:
                continue  // applied in place after the bulk import
            }
        }
        try reindexChanged()
        try flush()
    }

    /// Reads an alternate names file into the book and the writer; its size in bytes.
    mutating func readAlternateNames(_ file: GeoNamesFile) throws -> Int64 {
        let name = file.url.lastPathComponent
        var bytesInFile: Int64 = 0
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
            if chunk.count >= owner.options.batchSize {
                try put(.alternates(chunk))
                chunk = []
                report(bytesBefore + bytesInFile)
            }
        }
        if !chunk.isEmpty { try put(.alternates(chunk)) }
        return bytesInFile
    }

    /// Reads a geoname dump: each kept place with its alternate names, in batches; its size
    /// in bytes.
    mutating func readPlaces(_ file: GeoNamesFile) throws -> Int64 {
        let name = file.url.lastPathComponent
        var bytesInFile: Int64 = 0
        try file.forEachLine(progress: { bytesInFile = $0 }) { line, number in
            summary.rowsRead += 1
            do throws(GeoNamesSkipReason) {
                var place = try GeoNamesRow.parse(line)
                if owner.options.keeps(place) {
                    place.alternates = book.carried(by: place.id)
                    batch.append(place)
                    summary.accepted += 1
                } else {
                    summary.filtered += 1
                }
            } catch {
                summary.skip(error, file: name, line: number)
            }
            if batch.count >= owner.options.batchSize {
                try flush()
                report(bytesBefore + bytesInFile)
            }
        }
        return bytesInFile
    }

    /// Stored places whose alternate names this import changes, but which it does not carry
    /// itself: re-indexed with their new names.
    mutating func reindexChanged() throws {
        for ids in book.changedButNotCarried().chunks(of: 500) {
            for place in try owner.database.storedPlaces(ids) {
                var place = place
                place.alternates = book.carried(by: place.id)
                batch.append(place)
                summary.reindexed += 1
                if batch.count >= owner.options.batchSize { try flush() }
            }
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
        byPlace = try database.storedAlternateNamesByPlace()
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
