import Foundation
import FrostboxCore
import FrostboxGeoNames
import Testing

@Suite("GeoNames row parsing")
struct GeoNamesRowTests {
    /// Helsinki's real row from the shared extract.
    static var helsinki: String {
        get throws { try SharedExtract.lines().first { $0.hasPrefix("658225\t") }! }
    }

    static func row(replacing column: Int, with value: String) throws -> String {
        var fields = try helsinki.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[column] = value
        return fields.joined(separator: "\t")
    }

    @Test("a real row: every field lands where it belongs")
    func realRow() throws {
        let place = try GeoNamesRow.parse(try Self.helsinki)
        #expect(place.id == 658225)
        #expect(place.name == "Helsinki")
        #expect(place.asciiName == "Helsinki")
        #expect(place.alternateNames.contains("Helsingfors"))
        #expect(place.nameForms.contains("Хельсинки"))
        #expect(abs(place.coordinate.latitude - 60.16952) < 1e-9)
        #expect(abs(place.coordinate.longitude - 24.93545) < 1e-9)
        #expect(place.featureClass == "P")
        #expect(place.featureCode == "PPLC")
        #expect(place.countryCode == "FI")
        #expect(place.admin1Code == "01")
        #expect(place.population == 558457)
        #expect(place.timezone == "Europe/Helsinki")
        #expect(place.isSettlementLike)
    }

    @Test("every row of the shared extract parses")
    func wholeExtract() throws {
        let lines = try SharedExtract.lines()
        #expect(lines.count == 2305)
        var ids = Set<Int64>()
        for line in lines {
            let place = try GeoNamesRow.parse(line)
            ids.insert(place.id)
            #expect(!place.foldedNames.isEmpty)
        }
        #expect(ids.count == 2305)
    }

    @Test("quotes are part of names, empty fields are normal, population is 64-bit, CRLF is tolerated")
    func unusualButValid() throws {
        var place = try GeoNamesRow.parse(try Self.row(replacing: 1, with: "\"Quoted\" Town"))
        #expect(place.name == "\"Quoted\" Town")
        place = try GeoNamesRow.parse(try Self.row(replacing: 14, with: ""))
        #expect(place.population == 0)
        place = try GeoNamesRow.parse(try Self.row(replacing: 14, with: "7800000000"))
        #expect(place.population == 7_800_000_000)
        place = try GeoNamesRow.parse(try Self.row(replacing: 3, with: ""))
        #expect(place.nameForms == ["Helsinki", "Helsinki"])
        let plain = try GeoNamesRow.parse(try Self.helsinki)
        place = try GeoNamesRow.parse(try Self.helsinki + "\r")
        #expect(place == plain)
        place = try GeoNamesRow.parse(try Self.row(replacing: 4, with: "-90"))
        #expect(place.coordinate.latitude == -90)
        place = try GeoNamesRow.parse(try Self.row(replacing: 5, with: "180.00000"))
        #expect(place.coordinate.longitude == 180)
        place = try GeoNamesRow.parse(try Self.row(replacing: 15, with: "-12"))
        #expect(place.id == 658225)
    }

    static let dirty: [(String, @Sendable (String) -> String, GeoNamesSkipReason)] = [
        ("18 columns", { $0.split(separator: "\t", omittingEmptySubsequences: false).dropLast().joined(separator: "\t") }, .wrongColumnCount),
        ("20 columns", { $0 + "\textra" }, .wrongColumnCount),
        ("one column", { _ in "just some text" }, .wrongColumnCount),
        ("empty line", { _ in "" }, .emptyLine),
        ("carriage return only", { _ in "\r" }, .emptyLine),
    ]

    @Test("lines of the wrong shape are skipped with their reason", arguments: 0..<5)
    func wrongShape(index: Int) throws {
        let (label, mutate, reason) = Self.dirty[index]
        #expect(throws: reason, "\(label)") { try GeoNamesRow.parse(mutate(try Self.helsinki)) }
    }

    @Test(
        "bad values are skipped with their reason",
        arguments: [
            (0, "abc", GeoNamesSkipReason.invalidID), (0, "", .invalidID), (0, "0", .invalidID), (0, "-5", .invalidID),
            (0, "99999999999999999999", .invalidID),
            (1, "", .emptyName), (1, "   ", .emptyName),
            (4, "north", .invalidLatitude), (4, "", .invalidLatitude), (4, "91.5", .invalidLatitude),
            (4, "-90.001", .invalidLatitude), (4, "nan", .invalidLatitude), (4, "1e999", .invalidLatitude),
            (4, "60.1.2", .invalidLatitude), (4, "-", .invalidLatitude),
            (5, "-200.25", .invalidLongitude), (5, "east", .invalidLongitude), (5, "180.0001", .invalidLongitude),
            (14, "12x", .invalidPopulation), (14, "-1", .invalidPopulation), (14, "99999999999999999999", .invalidPopulation),
            (14, "1.5", .invalidPopulation),
            (15, "high", .invalidNumber), (16, "x", .invalidNumber),
        ])
    func badValues(column: Int, value: String, reason: GeoNamesSkipReason) throws {
        #expect(throws: reason, "column \(column) = \(value)") { try GeoNamesRow.parse(try Self.row(replacing: column, with: value)) }
    }

    @Test("invalid UTF-8 is skipped, not decoded into replacement characters")
    func invalidUTF8() throws {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF5, 0x80, 0x80, 0x80]] {
            var bytes = Array(try Self.helsinki.utf8)
            bytes.insert(contentsOf: bad, at: 10)
            #expect(throws: GeoNamesSkipReason.invalidEncoding) {
                try bytes.withUnsafeBufferPointer { try GeoNamesRow.parse($0) }
            }
        }
    }

    @Test("decimal parsing agrees with the standard library on plain decimals")
    func decimals() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let value = Double.random(in: -180...180, using: &generator)
            for digits in [0, 1, 5, 6, 8] {
                let text = String(format: "%.\(digits)f", value)
                let parsed = Array(text.utf8).withUnsafeBufferPointer { GeoNamesRow.parseDecimal($0) }
                #expect(parsed == Double(text), "\(text)")
            }
        }
        #expect(Array("1234567890.1234567890".utf8).withUnsafeBufferPointer { GeoNamesRow.parseDecimal($0) } == 1234567890.1234567890)
    }
}

/// The bundled GeoNames extract, read from the repository.
enum SharedExtract {
    static var url: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("data/geonames/nordic-cities1000.txt")
    }

    static func lines() throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}
