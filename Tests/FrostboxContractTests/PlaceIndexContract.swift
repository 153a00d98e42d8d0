import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import Testing

/// Every `PlaceIndex` there is.
enum PlaceIndexImplementation: String, ContractImplementation {
    case grdb, inMemory

    /// An index holding exactly `places` (and the labels); `directory` holds whatever files it
    /// needs for the test's duration.
    func make(
        _ places: [Place], admin1: [Admin1Division] = [], countries: [CountryInfo] = [], in directory: TemporaryDirectory
    ) throws -> any PlaceIndex {
        switch self {
        case .grdb:
            let database = try PlacesDatabase(path: directory.databasePath)
            let importer = GRDBPlaceImporter(database: database)
            try importer.begin()
            var batch = PlaceBatch()
            for place in places { batch.append(place) }
            if !batch.isEmpty { try importer.add(batch) }
            let alternates = places.flatMap(\.alternates)
            if !alternates.isEmpty { try importer.addAlternateNames(alternates) }
            if !admin1.isEmpty { try importer.addAdmin1(admin1) }
            if !countries.isEmpty { try importer.addCountries(countries) }
            _ = try importer.finish()
            return GRDBPlaceIndex(database: database)
        case .inMemory:
            return InMemoryPlaceIndex(places, admin1: admin1, countries: countries)
        }
    }
}

@Suite("PlaceIndex contract")
struct PlaceIndexContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-places")
    }

    static let vuosaari = Coordinate(uncheckedLatitude: 60.21, longitude: 25.14)

    static func place(
        _ id: Int64, _ name: String, _ lat: Double, _ lon: Double, population: Int64 = 0, featureClass: String = "P",
        ascii: String? = nil, alternates: String = "", country: String = "FI", admin1: String = "01"
    ) -> Place {
        Place(
            id: id, name: name, asciiName: ascii ?? NameFolding.fold(name), alternateNames: alternates,
            coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), featureClass: featureClass,
            featureCode: featureClass == "P" ? "PPL" : "LK", countryCode: country, admin1Code: admin1,
            population: population, timezone: "Europe/Helsinki")
    }

    /// A small southern Finland, enough for every rule below and under every limit.
    static let finland = [
        place(658_225, "Helsinki", 60.169, 24.935, population: 558_457, alternates: "HEL,Helsingfors,Хельсинки"),
        place(660_129, "Espoo", 60.205, 24.652, population: 256_760, alternates: "Esbo"),
        place(632_453, "Vantaa", 60.294, 25.040, population: 223_027, alternates: "Vanda"),
        place(90_000_001, "Helgeby", 60.225, 25.190, population: 200),
        place(655_194, "Jyväskylä", 62.241, 25.721, population: 98_136),
        place(90_000_002, "Hellanmaa", 60.300, 25.300, population: 0),
    ]

    func search(
        _ index: any PlaceIndex, _ text: String, near: Coordinate? = vuosaari, limit: Int = 10, radius: Double = 200
    ) async throws -> [PlaceMatch] {
        try await index.search(try PlaceQuery(text: text, near: near, limit: limit, radiusKilometres: radius))
    }

    @Test(
        "with alternate names: a code is not a name, names in a language are found, and the query's language names the place",
        arguments: PlaceIndexImplementation.available)
    func alternateNames(_ implementation: PlaceIndexImplementation) async throws {
        var places = Self.finland
        places[0].alternates = [
            AlternateName(id: 1, placeID: 658_225, language: "iata", name: "HEL"),
            AlternateName(id: 2, placeID: 658_225, language: "sv", name: "Helsingfors", isPreferred: true),
            AlternateName(id: 3, placeID: 658_225, language: "fi", name: "Helsingin kaupunki"),
        ]
        places[1].alternates = [AlternateName(id: 4, placeID: 660_129, language: "sv", name: "Esbo", isPreferred: true)]
        let index = try implementation.make(places, in: directory)
        let hel = try await search(index, "hel")
        #expect(hel.first?.place.id == 658_225)
        #expect(hel.first?.matchedName == "Helsinki")
        #expect(hel.first?.isExact == false, "HEL no longer makes 'hel' an exact match")
        #expect(try await search(index, "helsingin k").first?.place.id == 658_225)
        let swedish = try await index.search(try PlaceQuery(text: "e", near: Self.vuosaari, languages: ["sv-FI"]))
        let espoo = try #require(swedish.first { $0.place.id == 660_129 })
        #expect(espoo.displayName == "Esbo")
        #expect(espoo.place.alternates == places[1].alternates)
        let plain = try await search(index, "esp")
        #expect(plain.first?.displayName == "Espoo")
    }

    @Test("an empty index answers nothing, near a point or worldwide", arguments: PlaceIndexImplementation.available)
    func empty(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make([], in: directory)
        #expect(try await search(index, "hel").isEmpty)
        #expect(try await search(index, "hel", near: nil).isEmpty)
    }

    @Test(
        "a prefix of any name form finds the place once, with its best form, distance and score",
        arguments: PlaceIndexImplementation.available)
    func prefixNear(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(Self.finland, in: directory)
        let results = try await search(index, "hel")
        #expect(results.map(\.place.id) == [658_225, 90_000_001, 90_000_002])
        let helsinki = try #require(results.first)
        #expect(helsinki.matchedName == "HEL")
        #expect(helsinki.isExact)
        let distance = try #require(helsinki.distanceKilometres)
        #expect(abs(distance - Self.vuosaari.distanceKilometres(to: helsinki.place.coordinate)) < 1e-9)
        #expect(abs(helsinki.score - PlaceRanking.score(population: 558_457, distanceKilometres: distance)) < 1e-9)
        #expect(helsinki.place == Self.finland[0])
        let prefix = try await search(index, "hels")
        #expect(prefix.map(\.place.id) == [658_225])
        #expect(prefix.first?.matchedName == "Helsinki")
        #expect(prefix.first?.isExact == false)
    }

    @Test(
        "queries match after folding: no diacritics, other case, other scripts",
        arguments: PlaceIndexImplementation.available)
    func folding(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(Self.finland, in: directory)
        #expect(try await search(index, "JYVAS", near: nil).map(\.place.name) == ["Jyväskylä"])
        #expect(try await search(index, "jyväs", near: nil).first?.matchedName == "Jyväskylä")
        let cyrillic = try await search(index, "Хельс", near: nil)
        #expect(cyrillic.map(\.place.id) == [658_225])
        #expect(cyrillic.first?.matchedName == "Хельсинки")
        #expect(try await search(index, "esbo").first?.matchedName == "Esbo")
    }

    @Test(
        "an exact name ranks above prefix matches, whatever their population",
        arguments: PlaceIndexImplementation.available)
    func exactFirst(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(
            [Self.place(1, "Kallio", 60.5, 25.5), Self.place(2, "Kalliola", 60.21, 25.14, population: 50_000)], in: directory)
        #expect(try await search(index, "kallio").map(\.place.id) == [1, 2])
        #expect(try await search(index, "kallio", near: nil).map(\.place.id) == [1, 2])
    }

    @Test(
        "near a point, places within the radius rank first; places beyond it complete the list",
        arguments: PlaceIndexImplementation.available)
    func radius(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(
            [Self.place(1, "Near", 60.211, 25.141), Self.place(2, "Nearby", 60.5, 25.14, population: 1_000_000)], in: directory)
        let small = try await search(index, "near", radius: 10)
        #expect(small.map(\.place.id) == [1, 2])
        #expect(small.map(\.isNearby) == [true, false])
        #expect(abs(small[1].score - PlaceRanking.score(population: 1_000_000, distanceKilometres: nil)) < 1e-9)
        #expect(try await search(index, "near", limit: 1, radius: 10).map(\.place.id) == [1])
        let wide = try await search(index, "near", radius: 100)
        #expect(wide.map(\.place.id) == [1, 2], "an exact name first, then by score")
        #expect(wide.allSatisfy { $0.isNearby })
    }

    @Test(
        "features that are not settlements are found next to the point only, never worldwide",
        arguments: PlaceIndexImplementation.available)
    func nonSettlements(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(
            [
                Self.place(1, "Lakeside Pond", 60.22, 25.16, featureClass: "H"),
                Self.place(2, "Lakewood Pond", 61.5, 25.14, featureClass: "H"),
                Self.place(3, "Lakeview Hill", 60.5, 25.14, population: 5, featureClass: "T"),
            ], in: directory)
        #expect(try await search(index, "lake").map(\.place.id) == [1, 3])
        #expect(try await search(index, "lake", near: nil).map(\.place.id) == [3])
    }

    @Test("worldwide: settlements by population, no distances", arguments: PlaceIndexImplementation.available)
    func worldwide(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(Self.finland, in: directory)
        let results = try await search(index, "e", near: nil)
        #expect(results.map(\.place.id) == [660_129])
        let all = try await search(index, "h", near: nil)
        #expect(all.map(\.place.id) == [658_225, 90_000_001, 90_000_002])
        #expect(all.allSatisfy { $0.distanceKilometres == nil })
        #expect(abs(all[0].score - PlaceRanking.score(population: 558_457, distanceKilometres: nil)) < 1e-9)
    }

    // Near a point an index may stop at the first `limit` places it finds nearest first (the
    // SQLite one does), so only the worldwide case promises the best ones.
    @Test(
        "the limit caps results, in ranking order; worldwide they are the largest",
        arguments: PlaceIndexImplementation.available)
    func limit(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(Self.finland, in: directory)
        let near = try await search(index, "h", limit: 2)
        #expect(near.count == 2)
        #expect(near == near.sorted(by: PlaceRanking.ranksBefore))
        #expect(try await search(index, "h", near: nil, limit: 1).map(\.place.id) == [658_225])
        #expect(try await search(index, "h", near: nil, limit: 2).map(\.place.id) == [658_225, 90_000_001])
    }

    @Test("admin1 and country names label results when known, nil otherwise", arguments: PlaceIndexImplementation.available)
    func labels(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(
            Self.finland + [Self.place(588_409, "Tallinn", 59.437, 24.754, population: 394_024, country: "EE", admin1: "37")],
            admin1: [Admin1Division(code: "FI.01", name: "Uusimaa", asciiName: "Uusimaa", geonameID: 830_709)],
            countries: [CountryInfo(code: "FI", name: "Finland")], in: directory)
        let espoo = try #require(try await search(index, "espoo").first)
        #expect(espoo.admin1Name == "Uusimaa")
        #expect(espoo.countryName == "Finland")
        let tallinn = try #require(try await search(index, "tallinn").first)
        #expect(tallinn.admin1Name == nil)
        #expect(tallinn.countryName == nil)
    }

    @Test("across the antimeridian places are near each other", arguments: PlaceIndexImplementation.available)
    func antimeridian(_ implementation: PlaceIndexImplementation) async throws {
        let index = try implementation.make(
            [
                Self.place(1, "Eastfield", -16.5, -179.99, population: 100),
                Self.place(2, "Westfield", -16.5, 179.99, population: 100),
                Self.place(3, "Eastwater", -16.5, -179.98, featureClass: "H"),
            ], in: directory)
        let fromEast = try await search(index, "east", near: Coordinate(uncheckedLatitude: -16.5, longitude: 179.99))
        #expect(fromEast.map(\.place.id) == [1, 3])
        #expect((fromEast.first?.distanceKilometres ?? 99) < 3)
        #expect(try await search(index, "westf", near: Coordinate(uncheckedLatitude: -16.5, longitude: -179.99)).map(\.place.id) == [2])
    }
}
