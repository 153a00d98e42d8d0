import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxGeoNames
import Testing
import ZIPFoundation

@Suite("GeoNames update files: alternate names, daily modifications and deletes")
struct GeoNamesUpdateFileTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-geonames-updates")
    }

    func write(_ name: String, _ text: String) throws -> URL {
        let url = temporary.url.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    static let placeLine = "658225\tHelsinki\tHelsinki\tHEL\t60.16952\t24.93545\tP\tPPLC\tFI\t\t01\t\t\t\t558457\t\t26\tEurope/Helsinki\t2024-01-01\n"
    static let alternateLine = "1\t658225\tsv\tHelsingfors\t1\t\t\t\t\t\n"
    static let deleteLine = "658225\tHelsinki\tduplicate\n"
    static let alternateDeleteLine = "1\t658225\tHelsingfors\twrong language\n"

    @Test(
        "daily files are recognised by name",
        arguments: [
            ("modifications-2026-11-23.txt", GeoNamesFile.Kind.geonames),
            ("deletes-2026-11-23.txt", .deletes),
            ("alternateNamesModifications-2026-11-23.txt", .alternateNames),
            ("alternateNamesDeletes-2026-11-23.txt", .alternateNameDeletes),
            ("alternateNamesV2.txt", .alternateNames),
        ])
    func byName(name: String, kind: GeoNamesFile.Kind) throws {
        // The content is a geoname row: the name decides.
        let file = try GeoNamesFile(url: try write(name, Self.placeLine))
        #expect(file.kind == kind)
        #expect(file.isDailyUpdate == name.contains("2026"))
    }

    @Test("renamed, each is recognised by its columns")
    func byContent() throws {
        #expect(try GeoNamesFile(url: try write("a.txt", Self.placeLine)).kind == .geonames)
        #expect(try GeoNamesFile(url: try write("b.txt", Self.alternateLine)).kind == .alternateNames)
        #expect(try GeoNamesFile(url: try write("c.txt", "1\t658225\tfi\tHelsinki\t1\t\t\t\n")).kind == .alternateNames)
        #expect(try GeoNamesFile(url: try write("d.txt", Self.deleteLine)).kind == .deletes)
        #expect(try GeoNamesFile(url: try write("e.txt", Self.alternateDeleteLine)).kind == .alternateNameDeletes)
        #expect(try GeoNamesFile(url: try write("f.txt", "FI.01\tUusimaa\tUusimaa\t830709\n")).kind == .admin1)
        #expect(try GeoNamesFile(url: try write("g.txt", "x.txt")).isDailyUpdate == false)
    }

    @Test("the alternate names zip is read without its language code list, also when renamed")
    func alternateNamesZip() throws {
        let url = temporary.url.appendingPathComponent("names.zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in [("alternateNamesV2.txt", Self.alternateLine), ("iso-languagecodes.txt", "ISO 639-3\tISO 639-2\nfin\tfin\n")] {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), bufferSize: 4096) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let file = try GeoNamesFile(url: url)
        #expect(file.kind == .alternateNames)
        var lines: [String] = []
        try file.forEachLine { line, _ in lines.append(String(decoding: line, as: UTF8.self)) }
        #expect(lines == [String(Self.alternateLine.dropLast())])
    }

    @Test("alternate name rows: 10 columns (V2) or 8, flags, from and to")
    func alternateRows() throws {
        let v2 = try Self.parseAlternate("42\t658225\tsv\tHelsingfors\t1\t1\t\t1\t1550\t1812")
        #expect(
            v2
                == AlternateName(
                    id: 42, placeID: 658225, language: "sv", name: "Helsingfors", isPreferred: true, isShort: true, isColloquial: false,
                    isHistoric: true, from: "1550", to: "1812"))
        let v1 = try Self.parseAlternate("43\t658225\tiata\tHEL\t\t\t\t")
        #expect(v1.language == "iata" && v1.name == "HEL" && v1.from.isEmpty && !v1.isPreferred)
        #expect(throws: GeoNamesSkipReason.wrongColumnCount) { try Self.parseAlternate("1\t2\tfi") }
        #expect(throws: GeoNamesSkipReason.invalidID) { try Self.parseAlternate("x\t658225\tfi\tA\t\t\t\t") }
        #expect(throws: GeoNamesSkipReason.invalidID) { try Self.parseAlternate("1\t0\tfi\tA\t\t\t\t") }
        #expect(throws: GeoNamesSkipReason.emptyName) { try Self.parseAlternate("1\t2\tfi\t \t\t\t\t") }
        #expect(throws: GeoNamesSkipReason.emptyLine) { try Self.parseAlternate("") }
    }

    @Test("delete rows give the id of their first column")
    func deleteRows() throws {
        #expect(try Self.parseDelete("658225\tHelsinki\tduplicate") == 658225)
        #expect(try Self.parseDelete("7\t658225\tHEL\t\r") == 7)
        #expect(throws: GeoNamesSkipReason.invalidID) { try Self.parseDelete("-1\tx\ty") }
        #expect(throws: GeoNamesSkipReason.wrongColumnCount) { try Self.parseDelete("658225") }
    }

    static func parseAlternate(_ line: String) throws(GeoNamesSkipReason) -> AlternateName {
        var bytes = Array(line.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(GeoNamesSkipReason) in
            try GeoNamesUpdateRows.alternateName(UnsafeBufferPointer(buffer))
        }
    }

    static func parseDelete(_ line: String) throws(GeoNamesSkipReason) -> Int64 {
        var bytes = Array(line.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(GeoNamesSkipReason) in
            try GeoNamesUpdateRows.deletedID(UnsafeBufferPointer(buffer))
        }
    }
}
