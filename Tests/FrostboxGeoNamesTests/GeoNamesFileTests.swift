import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxGeoNames
import Testing
import ZIPFoundation

@Suite("GeoNames files: plain, zipped, admin1 and countries")
struct GeoNamesFileTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-geonames")
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    func zip(_ name: String, entries: [(String, Data)], compressed: Bool = true) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: compressed ? .deflate : .none,
                bufferSize: 4096
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static func lines(of file: GeoNamesFile) throws -> [(String, Int)] {
        var lines: [(String, Int)] = []
        try file.forEachLine { line, number in lines.append((String(decoding: line, as: UTF8.self), number)) }
        return lines
    }

    @Test("a plain dump streams every line with its number, also without a final newline and across chunk borders")
    func plainLines() throws {
        let extract = try Data(contentsOf: SharedExtract.url)
        let url = try write("FI.txt", Array(extract) + Array("last\tline".utf8))
        let file = try GeoNamesFile(url: url)
        #expect(file.kind == .geonames)
        let lines = try Self.lines(of: file)
        #expect(lines.count == 2306)
        #expect(lines.first?.1 == 1)
        #expect(lines.last! == ("last\tline", 2306))
        #expect(try file.totalBytes() == Int64(extract.count + 9))
    }

    @Test("lines crossing the 4 MiB read chunks arrive whole")
    func chunkBorders() throws {
        let extract = try Data(contentsOf: SharedExtract.url)
        let copies = 12
        var bytes = [UInt8]()
        for _ in 0..<copies { bytes.append(contentsOf: extract) }
        let file = try GeoNamesFile(url: try write("big.txt", bytes))
        let expected = try SharedExtract.lines()
        var count = 0
        try file.forEachLine { line, number in
            #expect(String(decoding: line, as: UTF8.self) == expected[(number - 1) % expected.count])
            count += 1
        }
        #expect(count == expected.count * copies)
    }

    @Test("a zip is streamed without unpacking: same lines as the plain file, readme ignored")
    func zipLines() throws {
        let extract = try Data(contentsOf: SharedExtract.url)
        let url = try zip("FI.zip", entries: [("readme.txt", Data("not a dump\n".utf8)), ("FI.txt", extract)])
        let file = try GeoNamesFile(url: url)
        #expect(file.kind == .geonames)
        let lines = try Self.lines(of: file)
        #expect(lines.count == 2305)
        #expect(try lines.map(\.0) == SharedExtract.lines())
        #expect(try file.totalBytes() == Int64(extract.count))
        var progress: [Int64] = []
        try file.forEachLine(progress: { progress.append($0) }) { _, _ in }
        #expect(progress.last == Int64(extract.count))
        let contents = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(Set(contents) == ["FI.zip"])
    }

    @Test("a stored (uncompressed) zip entry reads too")
    func storedZip() throws {
        let url = try zip("cities1000.zip", entries: [("cities1000.txt", Data("a\nb\n".utf8))], compressed: false)
        #expect(try Self.lines(of: GeoNamesFile(url: url)).map(\.0) == ["a", "b"])
    }

    @Test("a damaged or empty zip fails with a clear error")
    func badZip() throws {
        let garbage = try write("allCountries.zip", Array("this is not a zip".utf8))
        #expect(throws: GeoNamesError.self) { try GeoNamesFile(url: garbage).forEachLine { _, _ in } }
        let empty = try zip("empty.zip", entries: [("readme.txt", Data("x\n".utf8))])
        #expect(throws: GeoNamesError.self) { try GeoNamesFile(url: empty).forEachLine { _, _ in } }

        // Flip bytes inside the compressed data: inflate or the CRC check must notice.
        let good = try zip("XX.zip", entries: [("XX.txt", try Data(contentsOf: SharedExtract.url))])
        var bytes = try Data(contentsOf: good)
        for offset in stride(from: 200, to: 2000, by: 7) { bytes[offset] ^= 0x5A }
        try bytes.write(to: good)
        #expect(throws: (any Error).self) { try GeoNamesFile(url: good).forEachLine { _, _ in } }
    }

    @Test("a missing file is refused up front")
    func missing() {
        #expect(throws: GeoNamesError.self) { try GeoNamesFile(url: directory.appendingPathComponent("nope.txt")) }
    }

    @Test("admin1CodesASCII.txt: codes, names and ids; malformed lines skipped")
    func admin1() throws {
        let url = try write(
            "admin1CodesASCII.txt",
            Array(
                """
                FI.01\tUusimaa\tUusimaa\t830709
                SE.26\tStockholm\tStockholm\t2673722
                broken line
                FI.02\tSouth Karelia\tSouth Karelia\t
                """.utf8))
        let file = try GeoNamesFile(url: url)
        #expect(file.kind == .admin1)
        let divisions = try GeoNamesTables.admin1(file)
        #expect(divisions.map(\.code) == ["FI.01", "SE.26", "FI.02"])
        #expect(divisions[0] == Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830709))
        #expect(divisions[2].geonameID == nil)
        // Recognised by content when renamed.
        let renamed = try write("divisions.txt", Array("FI.01\tUusimaa\tUusimaa\t830709\n".utf8))
        #expect(try GeoNamesFile(url: renamed).kind == .admin1)
    }

    @Test("countryInfo.txt: comments skipped, names and populations read")
    func countries() throws {
        let url = try write(
            "countryInfo.txt",
            Array(
                """
                # GeoNames country info
                #ISO\tISO3\tISO-Numeric\tfips\tCountry\tCapital\tArea(in sq km)\tPopulation\tContinent\ttld
                FI\tFIN\t246\tFI\tFinland\tHelsinki\t337030\t5518050\tEU\t.fi
                SE\tSWE\t752\tSW\tSweden\tStockholm\t449964\t10183175\tEU\t.se
                DE\tDEU\t276\tGM\tGermany\tBerlin\t357021\t82927922\tEU\t.de\tEUR\tEuro\t49\t#####\t^(\\d{5})$\tde\t2921044\tCH,PL,NL,DK,BE,CZ,LU,FR,AT\t
                x\tbroken
                """.utf8))
        let file = try GeoNamesFile(url: url)
        #expect(file.kind == .countries)
        let countries = try GeoNamesTables.countries(file)
        #expect(countries.map(\.code) == ["FI", "SE", "DE"])
        #expect(countries[0] == CountryInfo(code: "FI", name: "Finland", capital: "Helsinki", population: 5518050, continent: "EU"))
        #expect(countries[2].geonameID == 2_921_044, "the country's own row, for its names in other languages")
    }
}
