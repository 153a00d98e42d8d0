import Foundation
import FrostboxCore
import FrostboxDoubles
import Testing

@testable import FrostboxSQLite

@Suite("Import name runs: sort order, run files, merge")
struct NameRunsTests {
    struct Entry: Hashable {
        var level: UInt8
        var key: Int64
        var folded: String
        var placeID: Int64
        var seq: UInt32

        /// SQLite's order of the name tables' primary key (BINARY collation: bytes, shorter
        /// first), then seq.
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.level != b.level { return a.level < b.level }
            if a.key != b.key { return a.key < b.key }
            let bytesA = Array(a.folded.utf8), bytesB = Array(b.folded.utf8)
            if bytesA != bytesB { return bytesA.lexicographicallyPrecedes(bytesB) }
            if a.placeID != b.placeID { return a.placeID < b.placeID }
            return a.seq < b.seq
        }
    }

    /// Names that share long prefixes, differ beyond byte 12, are prefixes of each other,
    /// and mix scripts (multi-byte UTF-8 across the 4- and 12-byte boundaries).
    static func entries(count: Int, seed: UInt64) -> [Entry] {
        var rng = SplitMix64(seed: seed)
        let stems = ["", "a", "ab", "abcd", "abcdefghijkl", "abcdefghijklm", "helsinki", "helsingfors", "москва", "åland", "東京", "z"]
        let tails = ["", "a", "b", " x", "é", "ж", "abcdefgh", "\u{10FFFF}"]
        return (0..<count).map { index in
            Entry(
                level: UInt8.random(in: 0...2, using: &rng),
                key: [0, 1, 7, 64_799, 25_919_999, (1 << 30) - 1].randomElement(using: &rng)!,
                folded: stems.randomElement(using: &rng)! + tails.randomElement(using: &rng)! + tails.randomElement(using: &rng)!,
                placeID: Int64.random(in: 1...20, using: &rng),
                seq: UInt32(index))
        }.filter { !$0.folded.isEmpty }
    }

    static func buffer(_ entries: some Sequence<Entry>) -> NameRunBuffer {
        var buffer = NameRunBuffer(capacity: 1 << 16)
        for entry in entries {
            buffer.append(level: entry.level, key: entry.key, placeID: entry.placeID, seq: entry.seq, folded: entry.folded)
        }
        return buffer
    }

    static func entry(_ record: UnsafeRawPointer) -> Entry {
        Entry(
            level: NameRecord.level(record), key: NameRecord.key(record),
            folded: String(decoding: UnsafeRawBufferPointer(start: record + NameRecord.headerSize, count: NameRecord.length(record)), as: UTF8.self),
            placeID: NameRecord.placeID(record), seq: NameRecord.seq(record))
    }

    @Test("a buffer sorts into SQLite's key order, ties broken by whole records", arguments: [1, 2, 3] as [UInt64])
    func sortOrder(seed: UInt64) {
        let entries = Self.entries(count: 3_000, seed: seed)
        let buffer = Self.buffer(entries)
        let sorted = buffer.bytes.withUnsafeBytes { bytes in
            buffer.sortedOffsets().map { Self.entry(bytes.baseAddress! + $0) }
        }
        #expect(sorted == entries.sorted(by: Entry.precedes))
    }

    @Test("run files read back in order, and the merge of several runs is globally sorted")
    func runFilesAndMerge() throws {
        let directory = try TemporaryDirectory()
        let entries = Self.entries(count: 9_000, seed: 9)
        // Three runs of different sizes; records bigger than the reader's refill margin
        // do not occur, but refills across record boundaries do (1 MiB buffer, small runs
        // read in one go; the merge interleaves them).
        let parts = [entries[0..<1_000], entries[1_000..<6_500], entries[6_500...]]
        var readers: [any NameRecordSource] = []
        for (index, part) in parts.enumerated() {
            let path = directory.url.appendingPathComponent("run-\(index).bin").path
            try Self.buffer(part).writeSortedRun(to: path)
            let reader = try NameRunReader(path: path)
            var read: [Entry] = []
            while let record = reader.current {
                read.append(Self.entry(record))
                try reader.advance()
            }
            #expect(read == part.sorted(by: Entry.precedes))
            readers.append(try NameRunReader(path: path))
        }
        var merger = NameRecordMerger(readers)
        var merged: [Entry] = []
        while let record = merger.current {
            merged.append(Self.entry(record))
            try merger.advance()
        }
        #expect(merged == entries.sorted(by: Entry.precedes))
    }

    @Test("a truncated run file is reported, not read as fewer names")
    func truncatedRun() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("run.bin").path
        try Self.buffer(Self.entries(count: 100, seed: 4)).writeSortedRun(to: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count - 3).write(to: URL(fileURLWithPath: path))
        #expect(throws: NameRunError.self) {
            let reader = try NameRunReader(path: path)
            while reader.current != nil { try reader.advance() }
        }
    }
}
