import Foundation
import FrostboxCore
import FrostboxGeoNames
import FrostboxSQLite
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Place search route")
struct PlaceRoutesTests {
    /// A harness whose database holds the shared GeoNames extract, with Uusimaa and the
    /// Nordic countries named.
    static func harness(alternates: [AlternateName] = []) throws -> RouteTestHarness {
        let harness = try RouteTestHarness()
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("data/geonames/nordic-cities1000.txt"), encoding: .utf8)
        let importer = GRDBPlaceImporter(database: harness.components.placesDatabase)
        try importer.begin()
        var batch = PlaceBatch()
        for line in text.split(separator: "\n") {
            var place = try GeoNamesRow.parse(String(line))
            place.alternates = alternates.filter { $0.placeID == place.id }
            batch.append(place)
        }
        try importer.add(batch)
        try importer.addAlternateNames(alternates)
        try importer.addAdmin1([Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830709)])
        try importer.addCountries([CountryInfo(code: "FI", name: "Finland"), CountryInfo(code: "SE", name: "Sweden")])
        _ = try importer.finish()
        return harness
    }

    static func results(_ response: TestResponse) -> [[String: Any]] {
        response.json["results"] as? [[String: Any]] ?? []
    }

    @Test("GET /v1/places near Vuosaari: Helsinki first, with every documented field")
    func nearSearch() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let response = try await client.send(.get, "/v1/places?q=hel&lat=60.21&lon=25.14&limit=10")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let first = try #require(Self.results(response).first)
            #expect(first["id"] as? Int == 658225)
            #expect(first["name"] as? String == "Helsinki")
            #expect(first["matched_name"] as? String == "HEL")
            #expect(first["country_code"] as? String == "FI")
            #expect(first["country"] as? String == "Finland")
            #expect(first["admin1"] as? String == "Uusimaa")
            #expect(first["label"] as? String == "Helsinki, Uusimaa, Finland")
            #expect(first["population"] as? Int == 558457)
            #expect(first["feature_code"] as? String == "PPLC")
            #expect(first["timezone"] as? String == "Europe/Helsinki")
            #expect(first["box"] as? String == "60.15#24.95")
            #expect(abs((first["latitude"] as? Double ?? 0) - 60.16952) < 1e-6)
            #expect(abs((first["longitude"] as? Double ?? 0) - 24.93545) < 1e-6)
            #expect((10...16).contains(first["distance_km"] as? Double ?? 0))
            let query = response.json["query"] as? [String: Any]
            #expect(query?["q"] as? String == "hel")
            #expect(query?["radius_km"] as? Double == 200)
        }
    }

    @Test("lang, else Accept-Language, picks each place's name; codes are not matched; a bad lang is a 400")
    func languages() async throws {
        let harness = try Self.harness(alternates: [
            AlternateName(id: 1, placeID: 658225, language: "iata", name: "HEL"),
            AlternateName(id: 2, placeID: 658225, language: "sv", name: "Helsingfors", isPreferred: true),
            AlternateName(id: 3, placeID: 658225, language: "ru", name: "Хельсинки", isPreferred: true),
        ])
        try await harness.test { client in
            let near = "/v1/places?q=hel&lat=60.21&lon=25.14"
            let swedish = try await client.send(.get, near + "&lang=sv")
            let first = try #require(Self.results(swedish).first)
            #expect(first["id"] as? Int == 658225)
            #expect(first["name"] as? String == "Helsingfors")
            #expect(first["matched_name"] as? String == "Helsinki", "HEL is an airport code, not a name")
            #expect(first["label"] as? String == "Helsingfors, Uusimaa, Finland")
            #expect((swedish.json["query"] as? [String: Any])?["languages"] as? [String] == ["sv"])
            let header = try await client.send(.get, near, headers: [.acceptLanguage: "de, ru;q=0.8, sv;q=0.5"])
            #expect(Self.results(header).first?["name"] as? String == "Хельсинки")
            let both = try await client.send(.get, near + "&lang=sv", headers: [.acceptLanguage: "ru"])
            #expect(Self.results(both).first?["name"] as? String == "Helsingfors", "lang wins over the header")
            let unknown = try await client.send(.get, near + "&lang=ja")
            #expect(Self.results(unknown).first?["name"] as? String == "Helsinki", "falls back to the GeoNames name")
            let messy = try await client.send(.get, near, headers: [.acceptLanguage: ";;q=x, !!"])
            #expect(messy.status == .ok)
            #expect(Self.results(messy).first?["name"] as? String == "Helsinki")
            for bad in ["english", "", "sv-", "s%C3%A4"] {
                let refused = try await client.send(.get, near + "&lang=" + bad)
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.errorCode == "invalid_field")
            }
        }
    }

    @Test("diacritic-free, percent-encoded and form-encoded queries")
    func encodings() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let jyvaskyla = try await client.send(.get, "/v1/places?q=jyvas")
            #expect(Self.results(jyvaskyla).first?["name"] as? String == "Jyväskylä")
            let encoded = try await client.send(.get, "/v1/places?q=J%C3%B6nk&lat=57.78&lon=14.16")
            #expect(Self.results(encoded).first?["name"] as? String == "Jönköping")
            let cyrillic = try await client.send(.get, "/v1/places?q=%D0%A5%D0%B5%D0%BB%D1%8C%D1%81")
            #expect(Self.results(cyrillic).first?["matched_name"] as? String == "Хельсинки")
            let spaced = try await client.send(.get, "/v1/places?q=sankt+peter&lat=59.9&lon=30.3")
            #expect(spaced.status == .ok)
        }
    }

    @Test("without lat/lon: worldwide by population, distance_km null")
    func worldwide() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let response = try await client.send(.get, "/v1/places?q=s&limit=3")
            let results = Self.results(response)
            #expect(results.count == 3)
            #expect(results.first?["name"] as? String == "Stockholm")
            #expect(results.allSatisfy { $0["distance_km"] is NSNull })
            let populations = results.compactMap { $0["population"] as? Int }
            #expect(populations == populations.sorted(by: >))
            #expect((response.json["query"] as? [String: Any])?["latitude"] is NSNull)
        }
    }

    @Test("format=geojson answers a FeatureCollection of [lon, lat] points")
    func geojson() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let response = try await client.send(.get, "/v1/places?q=espoo&lat=60.21&lon=25.14&format=geojson")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/geo+json")
            #expect(response.json["type"] as? String == "FeatureCollection")
            let feature = try #require((response.json["features"] as? [[String: Any]])?.first)
            #expect(feature["type"] as? String == "Feature")
            #expect(feature["id"] as? Int == 660158)
            let geometry = feature["geometry"] as? [String: Any]
            #expect(geometry?["type"] as? String == "Point")
            let coordinates = geometry?["coordinates"] as? [Double] ?? []
            #expect(coordinates.count == 2 && abs(coordinates[0] - 24.6522) < 0.01 && abs(coordinates[1] - 60.2052) < 0.01)
            let properties = feature["properties"] as? [String: Any]
            #expect(properties?["name"] as? String == "Espoo")
            #expect(properties?["matched_name"] != nil)
            #expect(properties?["latitude"] == nil)
        }
    }

    @Test("beyond the radius: Reykjavík, 2,420 km from Vuosaari, completes the list with its distance; 'name, country' reads the country")
    func farAndRegion() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let far = try await client.send(.get, "/v1/places?q=reykjav&lat=60.21&lon=25.14&radius_km=1000")
            #expect(far.status == .ok)
            let reykjavik = try #require(Self.results(far).first)
            #expect(reykjavik["id"] as? Int == 3413829)
            #expect((2_300...2_500).contains(reykjavik["distance_km"] as? Double ?? 0))
            // Two Viken: in Skåne (4,489 people) and in Västerbotten (3,753); both Swedish,
            // so 'sweden' keeps both, in population order, and 'finland' falls back to the name.
            for q in ["viken,%20sweden", "sweden+viken", "viken%20finland"] {
                let response = try await client.send(.get, "/v1/places?q=\(q)")
                #expect(Self.results(response).compactMap { $0["id"] as? Int } == [2663036, 601972], "\(q)")
            }
        }
    }

    @Test("no match is an empty list, not an error")
    func noMatch() async throws {
        let harness = try Self.harness()
        try await harness.test { client in
            let response = try await client.send(.get, "/v1/places?q=zzzzqqq&lat=60.21&lon=25.14")
            #expect(response.status == .ok)
            #expect(Self.results(response).isEmpty)
        }
    }

    static let badRequests: [(String, String)] = [
        ("/v1/places", "invalid_query"),
        ("/v1/places?q=", "invalid_query"),
        ("/v1/places?q=%20%20", "invalid_query"),
        ("/v1/places?q=...", "invalid_query"),
        ("/v1/places?q=\(String(repeating: "a", count: 101))", "invalid_query"),
        ("/v1/places?q=hel&lat=60.2", "invalid_coordinate"),
        ("/v1/places?q=hel&lon=25", "invalid_coordinate"),
        ("/v1/places?q=hel&lat=91&lon=25", "invalid_coordinate"),
        ("/v1/places?q=hel&lat=60&lon=-180.5", "invalid_coordinate"),
        ("/v1/places?q=hel&lat=north&lon=25", "invalid_coordinate"),
        ("/v1/places?q=hel&lat=nan&lon=25", "invalid_coordinate"),
        ("/v1/places?q=hel&lat=&lon=25", "invalid_coordinate"),
        ("/v1/places?q=hel&lang=finnish", "invalid_field"),
        ("/v1/places?q=hel&limit=0", "invalid_field"),
        ("/v1/places?q=hel&limit=51", "invalid_field"),
        ("/v1/places?q=hel&limit=ten", "invalid_field"),
        ("/v1/places?q=hel&lat=60&lon=25&radius_km=0", "invalid_field"),
        ("/v1/places?q=hel&lat=60&lon=25&radius_km=far", "invalid_field"),
        ("/v1/places?q=hel&format=xml", "invalid_field"),
        ("/v1/places?q=hel&lat=60&lon=25&radius=50", "invalid_field"),
        ("/v1/places?q=hel&Limit=5", "invalid_field"),
        ("/v1/places?q=!!", "invalid_query"),
        ("/v1/places?q=he%01l", "invalid_query"),
    ]

    @Test("bad parameters get a 400 JSON error naming the problem", arguments: badRequests)
    func badRequest(uri: String, code: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.get, uri)
            #expect(response.status == .badRequest, "\(uri)")
            #expect(response.errorCode == code, "\(uri): \(String(buffer: response.body))")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test("a 100-character query is accepted; other methods get 405")
    func edges() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let longest = try await client.send(.get, "/v1/places?q=\(String(repeating: "a", count: 100))")
            #expect(longest.status == .ok)
            let post = try await client.send(.post, "/v1/places?q=hel")
            #expect(post.status == .methodNotAllowed)
        }
    }
}
