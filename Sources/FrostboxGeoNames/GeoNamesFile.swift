import Foundation
import FrostboxCore
import ZIPFoundation

/// A GeoNames file given to the importer, recognised by name (and, failing that, content).
public struct GeoNamesFile: Sendable, Hashable {
    /// What a file holds.
    public enum Kind: String, Sendable {
        /// The "geoname" table: `allCountries`, `FI`, `cities1000`, … (`.txt` or `.zip`).
        case geonames
        /// `admin1CodesASCII.txt`: first-level division names.
        case admin1
        /// `countryInfo.txt`: country names.
        case countries
        /// The alternate names table: `alternateNamesV2.txt`/`.zip` (10 columns; the older
        /// 8-column `alternateNames` too) or a day's `alternateNamesModifications-DATE.txt`.
        case alternateNames
        /// A day's deleted places, `deletes-DATE.txt`: geonameid, name, comment.
        case deletes
        /// A day's deleted alternate names, `alternateNamesDeletes-DATE.txt`:
        /// alternateNameId, geonameid, name, comment.
        case alternateNameDeletes
    }

    public let url: URL
    public let kind: Kind
    /// Whether the name says it is one of GeoNames' daily update files
    /// (`modifications-…`, `deletes-…`, `alternateNamesModifications-…`, `alternateNamesDeletes-…`).
    public let isDailyUpdate: Bool

    /// Classifies `url`: by name (`admin1Codes…`, `countryInfo…`), otherwise by its first
    /// lines (4 columns: admin1; `#` comments with ISO/ISO3 columns: countries), otherwise
    /// a geoname dump.
    public init(url: URL) throws(GeoNamesError) {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw GeoNamesError(.unreadable, url: url, "cannot read \(url.path)")
        }
        self.url = url
        let name = url.lastPathComponent.lowercased()
        isDailyUpdate = ["modifications-", "deletes-", "alternatenamesmodifications-", "alternatenamesdeletes-"]
            .contains { name.hasPrefix($0) }
        if name.hasPrefix("admin1codes") {
            kind = .admin1
        } else if name.hasPrefix("countryinfo") {
            kind = .countries
        } else if name.hasPrefix("alternatenamesdeletes") {
            kind = .alternateNameDeletes
        } else if name.hasPrefix("alternatenames") {
            kind = .alternateNames
        } else if name.hasPrefix("deletes") {
            kind = .deletes
        } else if name.hasPrefix("modifications") {
            kind = .geonames
        } else if name.hasSuffix(".zip") {
            kind = Self.sniffZip(url) ?? .geonames
        } else {
            kind = Self.sniff(url) ?? .geonames
        }
    }

    /// A renamed zip: the alternate names zip holds `alternateNames….txt`.
    static func sniffZip(_ url: URL) -> Kind? {
        let opened: Archive?
        do { opened = try Archive(url: url, accessMode: .read, pathEncoding: nil) } catch { opened = nil }
        guard let archive = opened else { return nil }
        let names = archive.map { ($0.path as NSString).lastPathComponent.lowercased() }
        return names.contains { $0.hasPrefix("alternatenames") } ? .alternateNames : nil
    }

    static func sniff(_ url: URL) -> Kind? {
        guard let handle = try? FileHandle(forReadingFrom: url),
            let head = try? handle.read(upToCount: 4096)
        else { return nil }
        try? handle.close()
        let text = String(decoding: head, as: UTF8.self)
        if text.hasPrefix("#") && text.contains("ISO3") { return .countries }
        guard let first = text.split(separator: "\n").first else { return nil }
        let columns = first.split(separator: "\t", omittingEmptySubsequences: false)
        func isID(_ index: Int) -> Bool { index < columns.count && Int64(columns[index]).map { $0 > 0 } == true }
        switch columns.count {
        case 4 where columns[0].contains("."): return .admin1
        case 4 where isID(0) && isID(1): return .alternateNameDeletes
        case 3 where isID(0): return .deletes
        case let count where (count == 8 || count == 10) && isID(0) && isID(1) && columns[2].count <= 7: return .alternateNames
        default: return nil
        }
    }

    /// Size in bytes of what will be read: the file, or the uncompressed dump entries of a zip.
    public func totalBytes() throws(GeoNamesError) -> Int64 {
        if isZip {
            let archive = try openArchive()
            return dumpEntries(of: archive).reduce(0) { $0 + Int64(clamping: $1.uncompressedSize) }
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    var isZip: Bool { url.pathExtension.lowercased() == "zip" }

    func openArchive() throws(GeoNamesError) -> Archive {
        do {
            return try Archive(url: url, accessMode: .read)
        } catch {
            throw GeoNamesError(.badArchive, url: url, "\(url.lastPathComponent) is not a readable zip archive")
        }
    }

    /// The dump entries of a GeoNames zip: its `.txt` files other than `readme.txt` and
    /// the alternate names zip's `iso-languagecodes.txt`.
    func dumpEntries(of archive: Archive) -> [Entry] {
        archive.filter { entry in
            let name = (entry.path as NSString).lastPathComponent.lowercased()
            return entry.type == .file && name.hasSuffix(".txt") && name != "readme.txt" && name != "iso-languagecodes.txt"
        }
    }

    /// Streams the file line by line (zip entries decompressed in memory, never unpacked
    /// to disk). `body` gets each line without its `\n` and the line's 1-based number;
    /// `progress` gets the bytes consumed so far.
    public func forEachLine(
        progress: (Int64) -> Void = { _ in },
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) throws {
        var splitter = LineSplitter()
        if isZip {
            let archive = try openArchive()
            let entries = dumpEntries(of: archive)
            guard !entries.isEmpty else {
                throw GeoNamesError(.badArchive, url: url, "\(url.lastPathComponent) holds no .txt dump")
            }
            var consumed: Int64 = 0
            for entry in entries {
                let checksum: CRC32
                // Errors of `body` pass through unchanged; anything ZIPFoundation throws
                // means the archive is damaged.
                var bodyError: (any Error)?
                do {
                    checksum = try archive.extract(entry, bufferSize: 1 << 20) { data in
                        consumed += Int64(data.count)
                        progress(consumed)
                        do {
                            try data.withUnsafeBytes { raw in
                                try splitter.feed(raw.bindMemory(to: UInt8.self), body)
                            }
                        } catch {
                            bodyError = error
                            throw error
                        }
                    }
                } catch {
                    if let bodyError { throw bodyError }
                    throw GeoNamesError(.badArchive, url: url, "\(entry.path) in \(url.lastPathComponent) is damaged")
                }
                guard checksum == entry.checksum else {
                    throw GeoNamesError(.badArchive, url: url, "\(entry.path) in \(url.lastPathComponent) fails its CRC check")
                }
                try splitter.finish(body)
            }
            return
        }
        guard let file = fopen(url.path, "rb") else {
            throw GeoNamesError(.unreadable, url: url, "cannot open \(url.path)")
        }
        defer { fclose(file) }
        let chunkSize = 4 << 20
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
        defer { buffer.deallocate() }
        var consumed: Int64 = 0
        while true {
            let count = fread(buffer.baseAddress, 1, chunkSize, file)
            if count == 0 { break }
            consumed += Int64(count)
            progress(consumed)
            try splitter.feed(UnsafeBufferPointer(rebasing: buffer[0..<count]), body)
        }
        if ferror(file) != 0 {
            throw GeoNamesError(.unreadable, url: url, "read error in \(url.path)")
        }
        try splitter.finish(body)
    }
}

/// Splits a stream of byte chunks into lines, carrying partial lines across chunks.
struct LineSplitter {
    private var carry: [UInt8] = []
    private(set) var lineNumber = 0

    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        var start = 0
        var index = 0
        let count = chunk.count
        while index < count {
            if chunk[index] == 0x0A {
                lineNumber += 1
                if carry.isEmpty {
                    try body(UnsafeBufferPointer(rebasing: chunk[start..<index]), lineNumber)
                } else {
                    carry.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<index]))
                    try carry.withUnsafeBufferPointer { try body($0, lineNumber) }
                    carry.removeAll(keepingCapacity: true)
                }
                start = index + 1
            }
            index += 1
        }
        if start < count {
            carry.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
        }
    }

    /// Delivers a last line that had no final `\n`.
    mutating func finish(_ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        guard !carry.isEmpty else { return }
        lineNumber += 1
        try carry.withUnsafeBufferPointer { try body($0, lineNumber) }
        carry.removeAll()
    }
}

/// A GeoNames file that cannot be read at all (as opposed to dirty lines, which are skipped).
public struct GeoNamesError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        case unreadable
        case badArchive
    }

    let code: Code
    /// The file at fault.
    public let url: URL
    /// A message for people.
    public let message: String

    init(_ code: Code, url: URL, _ message: String) {
        self.code = code
        self.url = url
        self.message = message
    }

    public var description: String { message }
}
