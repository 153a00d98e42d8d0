import FrostboxCore
import Synchronization

/// A `PlaceIndex` in memory over a handful of places, answering what the SQLite index answers
/// on small data (the contract suite runs both): a folded prefix of any name form, read by
/// `PlaceSearchPlan` ("name region"); near a point, settlement-like places within the radius
/// and any place in the point's neighbourhood and the two rings of boxes around it, completed
/// from settlement-like places anywhere; worldwide, settlement-like places by population;
/// ranked by `PlaceRanking`, labelled with admin1 and country names when known.
///
/// Unlike the SQLite index it reads every place for every query: meant for tests, not for
/// the whole GeoNames dump.
public final class InMemoryPlaceIndex: PlaceIndex {
    struct State: Sendable {
        var places: [Int64: Place] = [:]
        var admin1: [String: Admin1Division] = [:]
        var countries: [String: CountryInfo] = [:]
    }

    private let state = Mutex(State())

    public init(_ places: [Place] = [], admin1: [Admin1Division] = [], countries: [CountryInfo] = []) {
        insert(places, admin1: admin1, countries: countries)
    }

    /// Adds places, replacing any stored place with the same geonameid (as a re-import does).
    public func insert(_ places: [Place], admin1: [Admin1Division] = [], countries: [CountryInfo] = []) {
        state.withLock { state in
            for place in places { state.places[place.id] = place }
            for division in admin1 { state.admin1[division.code] = division }
            for country in countries { state.countries[country.code] = country }
        }
    }

    /// How many places are stored.
    public var count: Int { state.withLock { $0.places.count } }

    public func search(_ query: PlaceQuery) async throws -> [PlaceMatch] {
        let snapshot = state.withLock { $0 }
        return PlaceSearchPlan.results(
            for: query, catalog: { Self.catalog(snapshot) }, search: { Self.search($0, query, in: snapshot) })
    }

    static func catalog(_ state: State) -> RegionCatalog {
        let ids = state.admin1.values.compactMap(\.geonameID) + state.countries.values.compactMap(\.geonameID)
        let alternates = ids.flatMap { state.places[$0]?.alternates ?? [] }
        return RegionCatalog(admin1: Array(state.admin1.values), countries: Array(state.countries.values), alternates: alternates)
    }

    /// One reading: nearby places (settlement-like within the radius, any place in the boxes
    /// around the point), completed from settlement-like places anywhere when fewer than
    /// `limit` are nearby; worldwide without a point.
    static func search(_ reading: PlaceSearchPlan.Reading, _ query: PlaceQuery, in state: State) -> [PlaceMatch] {
        let nearby = query.near.map(Self.nearbyBoxes(of:)) ?? []
        var near: [PlaceMatch] = []
        var far: [PlaceMatch] = []
        for place in state.places.values {
            guard reading.admits(countryCode: place.countryCode, admin1Code: place.admin1Code),
                let best = PlaceRanking.bestMatch(of: place, foldedQuery: reading.folded)
            else { continue }
            let distance = query.near.map { $0.distanceKilometres(to: place.coordinate) }
            // Without a point every settlement-like place counts as nearby, and nothing else is found.
            let isNearby =
                distance.map { $0 <= query.radiusKilometres && (place.isSettlementLike || nearby.contains(place.box)) }
                ?? place.isSettlementLike
            guard isNearby || place.isSettlementLike else { continue }
            let match = PlaceMatch(
                place: place, matchedName: best.name, isExact: best.isExact,
                nameKind: PlaceRanking.nameKind(
                    of: place, foldedQuery: reading.folded, exact: best.isExact, languages: query.languages),
                distanceKilometres: distance, isNearby: isNearby,
                score: PlaceRanking.score(population: place.population, distanceKilometres: distance, isNearby: isNearby),
                admin1Name: state.admin1["\(place.countryCode).\(place.admin1Code)"]?.name,
                countryName: state.countries[place.countryCode]?.name, localizedName: place.preferredName(languages: query.languages),
                continuesAsTyped: PlaceRanking.continuesAsTyped(
                    name: place.name, asciiName: place.asciiName,
                    hyphenated: reading.folded == query.folded ? query.hyphenated : nil),
                ownNameIsPrefix: [place.name, place.asciiName].contains { NameFolding.compare($0, foldedQuery: reading.folded).isPrefix })
            if isNearby { near.append(match) } else { far.append(match) }
        }
        guard near.count < query.limit else { return PlaceRanking.top(near, limit: query.limit) }
        return PlaceRanking.top(near + far, limit: query.limit)
    }

    /// Where places that are not settlement-like are still found: the point's neighbourhood
    /// boxes and rings 1 and 2 around its box.
    static func nearbyBoxes(of point: Coordinate) -> Set<GeoBox> {
        Set(GeoBox.neighbourhood(of: point) + point.box.ring(1) + point.box.ring(2))
    }
}
