import FrostboxCore
import Synchronization

/// A `PlaceIndex` in memory over a handful of places, answering what the SQLite index answers
/// on small data (the contract suite runs both): a folded prefix of any name form; near a
/// point, settlement-like places within the radius and any place in the point's
/// neighbourhood and the two rings of boxes around it; worldwide, settlement-like places by
/// population; ranked by `PlaceRanking`, labelled with admin1 and country names when known.
///
/// Unlike the SQLite index it reads every place for every query: meant for tests, not for
/// the whole GeoNames dump.
public final class InMemoryPlaceIndex: PlaceIndex {
    struct State: Sendable {
        var places: [Int64: Place] = [:]
        var admin1: [String: String] = [:]
        var countries: [String: String] = [:]
    }

    private let state = Mutex(State())

    public init(_ places: [Place] = [], admin1: [Admin1Division] = [], countries: [CountryInfo] = []) {
        insert(places, admin1: admin1, countries: countries)
    }

    /// Adds places, replacing any stored place with the same geonameid (as a re-import does).
    public func insert(_ places: [Place], admin1: [Admin1Division] = [], countries: [CountryInfo] = []) {
        state.withLock { state in
            for place in places { state.places[place.id] = place }
            for division in admin1 { state.admin1[division.code] = division.name }
            for country in countries { state.countries[country.code] = country.name }
        }
    }

    /// How many places are stored.
    public var count: Int { state.withLock { $0.places.count } }

    public func search(_ query: PlaceQuery) async throws -> [PlaceMatch] {
        let snapshot = state.withLock { $0 }
        let nearby = query.near.map(Self.nearbyBoxes(of:)) ?? []
        var matches: [PlaceMatch] = []
        for place in snapshot.places.values {
            guard let best = PlaceRanking.bestMatch(of: place, foldedQuery: query.folded) else { continue }
            var distance: Double?
            if let point = query.near {
                let km = point.distanceKilometres(to: place.coordinate)
                guard km <= query.radiusKilometres, place.isSettlementLike || nearby.contains(place.box) else { continue }
                distance = km
            } else {
                guard place.isSettlementLike else { continue }
            }
            matches.append(
                PlaceMatch(
                    place: place, matchedName: best.name, isExact: best.isExact, distanceKilometres: distance,
                    score: PlaceRanking.score(population: place.population, distanceKilometres: distance),
                    admin1Name: snapshot.admin1["\(place.countryCode).\(place.admin1Code)"],
                    countryName: snapshot.countries[place.countryCode], localizedName: place.preferredName(languages: query.languages)))
        }
        return PlaceRanking.top(matches, limit: query.limit)
    }

    /// Where places that are not settlement-like are still found: the point's neighbourhood
    /// boxes and rings 1 and 2 around its box.
    static func nearbyBoxes(of point: Coordinate) -> Set<GeoBox> {
        Set(GeoBox.neighbourhood(of: point) + point.box.ring(1) + point.box.ring(2))
    }
}
