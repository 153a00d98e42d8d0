import Foundation

/// Name rows of an import, sorted outside SQLite: the importer collects them in memory,
/// sorts each full buffer into a run file, and merges the runs into the name tables in
/// primary-key order, so SQLite only ever appends (no staging table, no SQLite sorter, no
/// random B-tree inserts). Memory stays bounded by two buffers whatever the dump's size.
///
/// A record, in a buffer and in a run file:
///
///     level: UInt8 | key: Int64 | placeID: Int64 | seq: UInt32 | length: UInt16 | folded UTF-8
///
/// Records sort by level, key, folded bytes (memcmp, shorter first: SQLite's BINARY
/// collation), place id, then seq. `seq` is the place row's position in the import, to keep
/// only the last row of a geonameid that occurs twice.
enum NameRecord {
    static let headerSize = 23

    @inline(__always)
    static func level(_ record: UnsafeRawPointer) -> UInt8 { record.load(as: UInt8.self) }
    @inline(__always)
    static func key(_ record: UnsafeRawPointer) -> Int64 { Int64(littleEndian: record.loadUnaligned(fromByteOffset: 1, as: Int64.self)) }
    @inline(__always)
    static func placeID(_ record: UnsafeRawPointer) -> Int64 { Int64(littleEndian: record.loadUnaligned(fromByteOffset: 9, as: Int64.self)) }
    @inline(__always)
    static func seq(_ record: UnsafeRawPointer) -> UInt32 { UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 17, as: UInt32.self)) }
    @inline(__always)
    static func length(_ record: UnsafeRawPointer) -> Int { Int(UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 21, as: UInt16.self))) }
    @inline(__always)
    static func size(_ record: UnsafeRawPointer) -> Int { headerSize + length(record) }

    /// Writes a record's header at `record` (the folded bytes follow it).
    static func writeHeader(_ record: UnsafeMutableRawPointer, level: UInt8, key: Int64, placeID: Int64, seq: UInt32, length: Int) {
        record.storeBytes(of: level, as: UInt8.self)
        record.storeBytes(of: key.littleEndian, toByteOffset: 1, as: Int64.self)
        record.storeBytes(of: placeID.littleEndian, toByteOffset: 9, as: Int64.self)
        record.storeBytes(of: seq.littleEndian, toByteOffset: 17, as: UInt32.self)
        record.storeBytes(of: UInt16(length).littleEndian, toByteOffset: 21, as: UInt16.self)
    }

    /// Whether `a` sorts before `b`.
    @inline(__always)
    static func precedes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
        let levelA = level(a), levelB = level(b)
        if levelA != levelB { return levelA < levelB }
        let keyA = key(a), keyB = key(b)
        if keyA != keyB { return keyA < keyB }
        let lengthA = length(a), lengthB = length(b)
        let order = memcmp(a + headerSize, b + headerSize, min(lengthA, lengthB))
        if order != 0 { return order < 0 }
        if lengthA != lengthB { return lengthA < lengthB }
        let idA = placeID(a), idB = placeID(b)
        if idA != idB { return idA < idB }
        return seq(a) < seq(b)
    }
}

/// Name records collected in memory until the buffer is full.
struct NameRunBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var offsets: [Int] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    var byteCount: Int { bytes.count }
    var isEmpty: Bool { offsets.isEmpty }

    /// Folded names longer than this many UTF-8 bytes are cut (at a character boundary):
    /// GeoNames names are at most 200 characters, so this only guards the record format.
    static let maximumNameBytes = 1_000

    /// How many of a folded name's UTF-8 bytes a record keeps: all, up to
    /// `maximumNameBytes`, never cutting inside a UTF-8 sequence.
    static func keptLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var length = min(utf8.count, maximumNameBytes)
        // Continuation bytes are 0b10xxxxxx.
        while length < utf8.count, length > 0, utf8[length] & 0xC0 == 0x80 { length -= 1 }
        return length
    }

    /// A folded name as a record stores it.
    static func truncated(_ folded: String) -> String {
        guard folded.utf8.count > maximumNameBytes else { return folded }
        var copy = folded
        return copy.withUTF8 { utf8 in String(decoding: UnsafeBufferPointer(rebasing: utf8[..<keptLength(utf8)]), as: UTF8.self) }
    }

    mutating func append(level: UInt8, key: Int64, placeID: Int64, seq: UInt32, folded: String) {
        var folded = folded
        folded.withUTF8 { utf8 in
            let length = Self.keptLength(utf8)
            let start = bytes.count
            offsets.append(start)
            bytes.append(contentsOf: repeatElement(0, count: NameRecord.headerSize))
            bytes.withUnsafeMutableBytes { buffer in
                NameRecord.writeHeader(buffer.baseAddress! + start, level: level, key: key, placeID: placeID, seq: seq, length: length)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<length]))
        }
    }

    /// A record's position with the first 16 bytes of its sort order as two integers:
    /// level (2 bits), key (30 bits: the largest level key, a 0.05° box, is below 2^25) and
    /// folded bytes 0–3, then folded bytes 4–11 (zero padded: folding removes every control
    /// character, so no name holds a zero byte). Most comparisons end there; ties fall back
    /// to the whole record.
    struct SortKey {
        var high: UInt64
        var low: UInt64
        var offset: Int
    }

    static func sortKey(_ record: UnsafeRawPointer, offset: Int) -> SortKey {
        let key = NameRecord.key(record)
        precondition(key >= 0 && key < 1 << 30, "name level keys fit in 30 bits")
        let folded = record + NameRecord.headerSize
        var high = UInt64(NameRecord.level(record)) << 62 | UInt64(key) << 32
        var low: UInt64 = 0
        for index in 0..<min(NameRecord.length(record), 12) {
            let byte = UInt64(folded.load(fromByteOffset: index, as: UInt8.self))
            if index < 4 {
                high |= byte << (24 - 8 * index)
            } else {
                low |= byte << (56 - 8 * (index - 4))
            }
        }
        return SortKey(high: high, low: low, offset: offset)
    }

    /// Record offsets in sort order.
    func sortedOffsets() -> [Int] {
        bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            var keys = offsets.map { Self.sortKey(base + $0, offset: $0) }
            keys.sort { a, b in
                if a.high != b.high { return a.high < b.high }
                if a.low != b.low { return a.low < b.low }
                return NameRecord.precedes(base + a.offset, base + b.offset)
            }
            return keys.map(\.offset)
        }
    }

    /// Sorts the records and writes them, in order, to a new file at `path`.
    func writeSortedRun(to path: String) throws(NameRunError) {
        let order = sortedOffsets()
        guard let file = fopen(path, "wb") else { throw .cannotWrite(path, errno) }
        defer { fclose(file) }
        let chunkSize = 1 << 20
        var chunk = [UInt8]()
        chunk.reserveCapacity(chunkSize + 2 * NameRecord.headerSize + Self.maximumNameBytes)
        var failed = false
        bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            for offset in order {
                let record = base + offset
                chunk.append(contentsOf: UnsafeRawBufferPointer(start: record, count: NameRecord.size(record)))
                if chunk.count >= chunkSize {
                    failed = failed || fwrite(chunk, 1, chunk.count, file) != chunk.count
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        }
        if !chunk.isEmpty { failed = failed || fwrite(chunk, 1, chunk.count, file) != chunk.count }
        if failed || fflush(file) != 0 { throw .cannotWrite(path, errno) }
    }
}

enum NameRunError: Error, CustomStringConvertible {
    case cannotWrite(String, Int32)
    case cannotRead(String, Int32)
    case corrupt(String)

    var description: String {
        switch self {
        case .cannotWrite(let path, let code): "cannot write the import run file \(path): \(String(cString: strerror(code)))"
        case .cannotRead(let path, let code): "cannot read the import run file \(path): \(String(cString: strerror(code)))"
        case .corrupt(let path): "the import run file \(path) is truncated"
        }
    }
}

/// A sorted source of name records for the merge.
protocol NameRecordSource: AnyObject {
    /// The current record; valid until `advance()`. nil once exhausted.
    var current: UnsafeRawPointer? { get }
    /// Moves to the next record.
    func advance() throws
}

/// Reads a run file sequentially through a 1 MiB buffer.
final class NameRunReader: NameRecordSource {
    let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let capacity = 1 << 20
    private let buffer: UnsafeMutableRawPointer
    private var start = 0
    private var end = 0
    private var atEnd = false
    private(set) var current: UnsafeRawPointer?

    init(path: String) throws(NameRunError) {
        guard let file = fopen(path, "rb") else { throw .cannotRead(path, errno) }
        self.path = path
        self.file = file
        buffer = .allocate(byteCount: capacity + NameRecord.headerSize + NameRunBuffer.maximumNameBytes, alignment: 8)
        try advance()
    }

    deinit {
        fclose(file)
        buffer.deallocate()
    }

    func advance() throws(NameRunError) {
        if let current {
            start += NameRecord.size(current)
        }
        current = nil
        if end - start < NameRecord.headerSize || end - start < NameRecord.size(buffer + start) {
            try refill()
        }
        guard end > start else { return }
        guard end - start >= NameRecord.headerSize, end - start >= NameRecord.size(buffer + start) else {
            throw .corrupt(path)
        }
        current = UnsafeRawPointer(buffer + start)
    }

    private func refill() throws(NameRunError) {
        guard !atEnd else { return }
        let remaining = end - start
        if remaining > 0 { memmove(buffer, buffer + start, remaining) }
        start = 0
        end = remaining
        let read = fread(buffer + end, 1, capacity, file)
        if read < capacity {
            if ferror(file) != 0 { throw .cannotRead(path, errno) }
            atEnd = true
        }
        end += read
    }
}

/// Merges sorted sources: a binary heap on their current records.
struct NameRecordMerger {
    private var heap: [any NameRecordSource] = []

    init(_ sources: [any NameRecordSource]) {
        for source in sources where source.current != nil {
            push(source)
        }
    }

    /// The least current record of all sources, or nil when all are exhausted.
    var current: UnsafeRawPointer? { heap.first?.current }

    /// Moves past the least record.
    mutating func advance() throws {
        guard let top = heap.first else { return }
        try top.advance()
        if top.current == nil {
            let last = heap.removeLast()
            guard !heap.isEmpty else { return }
            heap[0] = last
        }
        siftDown(0)
    }

    private mutating func push(_ source: any NameRecordSource) {
        heap.append(source)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard NameRecord.precedes(heap[child].current!, heap[parent].current!) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var least = left
            if left + 1 < count, NameRecord.precedes(heap[left + 1].current!, heap[left].current!) { least = left + 1 }
            guard NameRecord.precedes(heap[least].current!, heap[parent].current!) else { return }
            heap.swapAt(least, parent)
            parent = least
        }
    }
}

/// Sorts and writes full buffers on a background thread, one at a time, so the importer
/// keeps inserting place rows meanwhile. At most one buffer is being written while the
/// next one fills.
final class NameRunSpiller {
    let directory: String
    private var writing: WorkerThread?
    private(set) var paths: [String] = []

    init(directory: String) {
        self.directory = directory
    }

    /// Hands `buffer` to a background thread (after the previous one is written).
    func submit(_ buffer: NameRunBuffer) throws {
        try writing?.join()
        let path = "\(directory)/run-\(paths.count).bin"
        paths.append(path)
        writing = WorkerThread(name: "frostbox-import-sort") {
            try buffer.writeSortedRun(to: path)
        }
    }

    /// Waits for the last buffer to be written; the run files in order.
    func wait() throws -> [String] {
        try writing?.join()
        return paths
    }
}
