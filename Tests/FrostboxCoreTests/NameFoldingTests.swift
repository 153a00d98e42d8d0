import Foundation
import FrostboxCore
import Testing

@Suite("Name folding")
struct NameFoldingTests {
    @Test(
        "folds to lower case without marks, with the special letters and punctuation rules",
        arguments: [
            ("Högholmen", "hogholmen"),
            ("São Paulo", "sao paulo"),
            ("Zürich", "zurich"),
            ("Jyväskylä", "jyvaskyla"),
            ("Москва", "москва"),
            ("Αθήνα", "αθηνα"),
            ("Straße", "strasse"),
            ("STRASSE", "strasse"),
            ("Ærøskøbing", "aeroskobing"),
            ("Œuvre", "oeuvre"),
            ("Łódź", "lodz"),
            ("Đà Nẵng", "da nang"),
            ("Þórshöfn", "thorshofn"),
            ("Reykjavík", "reykjavik"),
            ("St. John's", "st johns"),
            ("St John’s", "st johns"),
            ("Saint-Étienne", "saint etienne"),
            ("Washington, D.C.", "washington dc"),
            ("  New \t  York  ", "new york"),
            ("Ｔｏｋｙｏ", "tokyo"),
            ("Zu\u{0308}rich", "zurich"),
            ("İstanbul", "istanbul"),
            ("\"Quoted\" Place", "\"quoted\" place"),
            ("", ""),
            ("...", ""),
            (" - ", ""),
        ])
    func folds(raw: String, folded: String) {
        #expect(NameFolding.fold(raw) == folded)
    }

    @Test(
        "the issue's queries find their places by prefix",
        arguments: [
            ("hog", "Högholmen"), ("sao p", "São Paulo"), ("zurich", "Zürich"), ("jyvas", "Jyväskylä"), ("моск", "Москва"),
            ("Sao-Paulo", "São Paulo"), ("ZÜR", "Zürich"), ("aer", "Ærøskøbing"),
        ])
    func prefixFinds(query: String, name: String) {
        #expect(NameFolding.hasPrefix(NameFolding.fold(name), NameFolding.fold(query)))
    }

    @Test("Hangul syllables decompose, so a typed first syllable is a prefix of the name")
    func hangul() {
        let seoul = NameFolding.fold("서울")
        #expect(seoul.unicodeScalars.count == 5)
        #expect(NameFolding.hasPrefix(seoul, NameFolding.fold("서")))
        #expect(!NameFolding.hasPrefix(seoul, NameFolding.fold("부")))
    }

    @Test("non-Latin scripts match themselves, not a transliteration")
    func nonLatin() {
        #expect(!NameFolding.hasPrefix(NameFolding.fold("Москва"), "mosk"))
        #expect(NameFolding.fold("東京") == "東京")
        #expect(NameFolding.fold("القاهرة") == "القاهرة")
    }

    @Test("folding is idempotent on every name form of the shared extract")
    func idempotent() throws {
        for line in try SharedExtract.lines() {
            // name, asciiname and the comma-separated alternate names: columns 2–4 of a row.
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            let forms = columns[1...2] + columns[3].split(separator: ",")
            for form in forms where !form.isEmpty {
                let once = NameFolding.fold(form)
                #expect(NameFolding.fold(once) == once, "\(form)")
            }
        }
    }

    @Test("the prefix upper bound sorts after every extension of the prefix and before the next prefix")
    func upperBound() {
        let bound = NameFolding.upperBound(ofPrefix: "hel")
        for name in ["hel", "helsinki", "hel\u{FFFF}x", "helö", "hel東京"] {
            #expect(Array(name.utf8).lexicographicallyPrecedes(Array(bound.utf8)), "\(name)")
        }
        #expect(!Array("hem".utf8).lexicographicallyPrecedes(Array(bound.utf8)))
    }
}

/// The bundled GeoNames extract, read from the repository.
enum SharedExtract {
    static var path: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("data/geonames/nordic-cities1000.txt").path
    }

    static func lines() throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}

@Suite("Name folding: comparing a name with a query")
struct NameFoldingCompareTests {
    static let names = [
        "Carmel-by-the-Sea", "Carmel", "Carmel-", "Saint-Étienne", "Straße", "Ærøskøbing", "서울", "Москва", "St. John's",
        "  New \t  York  ", "Zu\u{0308}rich", "İstanbul", "Washington, D.C.", "", "...", "Carmel - by", "CARMEL", "Carmel\u{7F}",
    ]
    static let queries = [
        "carmel ", "carmel", "carm", "c", "saint e", "saint etienne", "strass", "strasse", "aeroskobing", "aer", "ᄉ", "моск",
        "st johns", "new york", "new", "zurich", "zur", "istanbul", "washington dc", "washington d", "x",
    ].map { NameFolding.fold($0, keepingTrailingSeparator: true) }

    @Test("agrees with folding the whole name, for every name and query pair")
    func agreesWithWholeFold() {
        for name in Self.names {
            let whole = NameFolding.fold(name)
            for query in Self.queries {
                let compared = NameFolding.compare(name, foldedQuery: query)
                #expect(compared.isPrefix == NameFolding.hasPrefix(whole, query), "\(name) / \(query)")
                #expect(compared.isEqual == (whole == query), "\(name) / \(query)")
                let onBytes = Array(name.utf8).withUnsafeBytes { NameFolding.compare(utf8: $0, foldedQuery: query) }
                #expect(onBytes.isPrefix == compared.isPrefix && onBytes.isEqual == compared.isEqual, "bytes: \(name) / \(query)")
            }
        }
    }

    @Test("a name longer than the query is a prefix match, not an equal one; a trailing hyphen ends a word")
    func cases() {
        func compared(_ name: String, _ query: String) -> [Bool] {
            let result = NameFolding.compare(name, foldedQuery: query)
            return [result.isPrefix, result.isEqual]
        }
        #expect(compared("Carmel-by-the-Sea", "carmel ") == [true, false])
        #expect(compared("Carmel", "carmel ") == [false, false])
        #expect(compared("Carmel", "carmel") == [true, true])
        #expect(compared("Straße", "strasse") == [true, true])
    }
}
