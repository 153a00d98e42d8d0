import Foundation
import GRDB

/// Merges the sorted runs (and the stored names to keep) on its own thread into batches of
/// records in primary-key order, dropping the names of earlier rows of a geonameid that
/// occurs twice in the import.
final class NameMergeThread: @unchecked Sendable {
    // @unchecked Sendable: the readers are used only by the merge thread once `start()` is
    // called.
    let batches = BlockingQueue<[UInt8]>(capacity: 4)
    private let runs: [NameRunReader]
    private let pool: DatabasePool?
    private let latestSeq: [Int64: UInt32]
    private var worker: WorkerThread?
    static let batchBytes = 1 << 20

    /// `storedFrom`: read the stored names of places not in `place_next` from this pool.
    init(runs: [NameRunReader], storedFrom pool: DatabasePool?, latestSeq: [Int64: UInt32]) {
        self.runs = runs
        self.pool = pool
        self.latestSeq = latestSeq
    }

    func start() {
        worker = WorkerThread(name: "frostbox-import-merge") { [self] in
            defer { batches.close() }
            guard let pool else { return try merge(runs) }
            try pool.read { db in
                var sources: [any NameRecordSource] = runs
                for (level, name) in GRDBPlaceImporter.levels.enumerated() {
                    sources.append(
                        try StoredNameSource(
                            db, level: UInt8(level),
                            sql: """
                                SELECT \(name), folded, place_id FROM main.place_name_\(name) o
                                WHERE NOT EXISTS (SELECT 1 FROM main.place_next i WHERE i.id = o.place_id)
                                ORDER BY \(name), folded, place_id
                                """))
                }
                try merge(sources)
            }
        }
    }

    /// Waits for the thread; rethrows what stopped it.
    func join() throws {
        try worker?.join()
    }

    private func merge(_ sources: [any NameRecordSource]) throws {
        var merger = NameRecordMerger(sources)
        let filterDuplicates = !latestSeq.isEmpty
        var batch: [UInt8] = []
        batch.reserveCapacity(Self.batchBytes + 2 * NameRecord.headerSize + Int(UInt16.max))
        while let record = merger.current {
            if !filterDuplicates || latestSeq[NameRecord.placeID(record)].map({ $0 == NameRecord.seq(record) }) ?? true {
                batch.append(contentsOf: UnsafeRawBufferPointer(start: record, count: NameRecord.size(record)))
                if batch.count >= Self.batchBytes {
                    guard batches.put(batch) else { return }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try merger.advance()
        }
        if !batch.isEmpty { _ = batches.put(batch) }
    }
}

/// The stored names of one level, as name records in primary-key order.
final class StoredNameSource: NameRecordSource {
    private let statement: RawStatement
    private let level: UInt8
    private let record: UnsafeMutableRawPointer
    private static let maximumBytes = Int(UInt16.max)
    private(set) var current: UnsafeRawPointer?

    init(_ db: Database, level: UInt8, sql: String) throws {
        statement = try RawStatement(db, sql: sql)
        self.level = level
        record = .allocate(byteCount: NameRecord.headerSize + Self.maximumBytes, alignment: 8)
        try advance()
    }

    deinit { record.deallocate() }

    func advance() throws {
        guard try statement.next() else {
            current = nil
            return
        }
        let folded = statement.textBytes(1)
        let length = min(folded.count, Self.maximumBytes)
        NameRecord.writeHeader(
            record, level: level, key: statement.int64(0), placeID: statement.int64(2), seq: 0, length: length)
        if length > 0 { (record + NameRecord.headerSize).copyMemory(from: folded.baseAddress!, byteCount: length) }
        current = UnsafeRawPointer(record)
    }
}
