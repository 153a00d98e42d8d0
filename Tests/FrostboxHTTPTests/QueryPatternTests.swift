import Foundation
import FrostboxCore
import Testing
import Yams

/// The OpenAPI document's pattern for `q` admits exactly what the server accepts, so a
/// generated client neither refuses a query the server answers nor sends one it refuses.
@Suite("OpenAPI q pattern")
struct QueryPatternTests {
    static func pattern() throws -> NSRegularExpression {
        let document = try OpenAPITests.document()
        let paths = try #require(document["paths"] as? [String: Any])
        let places = try #require((paths["/v1/places"] as? [String: Any])?["get"] as? [String: Any])
        let parameters = try #require(places["parameters"] as? [[String: Any]])
        let q = try #require(parameters.first { $0["name"] as? String == "q" })
        let pattern = try #require((q["schema"] as? [String: Any])?["pattern"] as? String)
        return try NSRegularExpression(pattern: pattern)
    }

    static let queries = [
        "hel", "хельс", "ヘルシ", "서울", "北京", "São P", "zurich", "jyväs", "42", "ⅻ", "a", " moscow ", "st. john's",
        "!!", "...", "-", "  ", "'", "he\u{1}l", "\u{7f}", "\u{0301}",
    ]

    @Test("pattern and server agree", arguments: queries)
    func agree(query: String) throws {
        let regex = try Self.pattern()
        let matches = regex.firstMatch(in: query, range: NSRange(query.startIndex..., in: query)) != nil
        let accepted = (try? PlaceQuery(text: query)) != nil
        #expect(matches == accepted, "\(query.debugDescription): pattern \(matches ? "admits" : "refuses"), server \(accepted ? "accepts" : "refuses")")
    }

    @Test("the queries of the issue are admitted")
    func nonLatin() throws {
        let regex = try Self.pattern()
        for query in ["хельс", "ヘルシ"] {
            #expect(regex.firstMatch(in: query, range: NSRange(query.startIndex..., in: query)) != nil, "\(query)")
        }
    }
}
