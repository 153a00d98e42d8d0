import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird

/// Place search: `GET /v1/places?q=hel&lat=60.19&lon=25.01&limit=10[&radius_km=200][&lang=fi][&format=geojson]`;
/// without `lang`, the request's `Accept-Language` picks the names' language.
public struct PlaceRoutes: Sendable {
    let index: any PlaceIndex

    /// What the stored places cover, when a searcher should be told (only the bundled extract,
    /// none at all); nil: nothing to say.
    let coverage: @Sendable () async -> String?

    public init(index: any PlaceIndex, coverage: @escaping @Sendable () async -> String? = { nil }) {
        self.index = index
        self.coverage = coverage
    }

    public func add(to routes: RouteBuilder) {
        routes.on(.get, "/v1/places") { request, _ in
            let parameters = request.uri.queryParameters
            if let unknown = parameters.first(where: { !PlaceSearchRequest.parameterNames.contains(String($0.key)) }) {
                throw APIError.badRequest(
                    .invalidField,
                    "unknown query parameter '\(unknown.key)'; /v1/places takes \(PlaceSearchRequest.parameterNames.joined(separator: ", "))")
            }
            let (query, format) = try PlaceSearchRequest.parse(acceptLanguage: request.headers[.acceptLanguage]) {
                parameters[Substring($0)].map(String.init)
            }
            let matches = try await index.search(query)
            switch format {
            case .json:
                let response = PlaceSearchResponse(query: query, matches: matches, hint: await coverage())
                return try Self.encode(response, contentType: "application/json; charset=utf-8")
            case .geojson:
                return try Self.encode(PlaceFeatureCollection(matches: matches), contentType: "application/geo+json")
            }
        }
    }

    static func encode(_ value: some Encodable, contentType: String) throws -> Response {
        let data = try JSONEncoder.frostbox.encode(value)
        return Response(
            status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The query parameters of `GET /v1/places`, validated.
enum PlaceSearchRequest {
    enum Format: String {
        case json, geojson
    }

    /// Every parameter the route reads; any other one is refused, so a typo (`radius=50`) is
    /// not silently ignored.
    static let parameterNames = ["q", "lat", "lon", "limit", "radius_km", "lang", "format"]

    /// Reads and validates the parameters; every refusal is a 400 naming the parameter. The
    /// names' languages: `lang` when given (validated), else the `Accept-Language` header's
    /// (read leniently: a malformed header is ignored, never refused).
    static func parse(acceptLanguage: String? = nil, _ parameter: (String) -> String?) throws(APIError) -> (PlaceQuery, Format) {
        let format: Format
        switch parameter("format") {
        case nil, "", "json": format = .json
        case "geojson": format = .geojson
        default: throw APIError.badRequest(.invalidField, "format must be json or geojson")
        }
        let latitude = try number(parameter("lat"), name: "lat")
        let longitude = try number(parameter("lon"), name: "lon")
        let limit = try parameter("limit").map { raw throws(APIError) -> Int in
            guard let value = Int(raw) else {
                throw APIError.badRequest(.invalidField, "limit must be an integer between 1 and 50")
            }
            return value
        }
        let radius = try number(parameter("radius_km"), name: "radius_km")
        do throws(ValidationError) {
            let languages =
                try parameter("lang").map { raw throws(ValidationError) in [try LanguageTag.parse(raw)] }
                ?? acceptLanguage.map(LanguageTag.acceptLanguage) ?? []
            var near: Coordinate?
            switch (latitude, longitude) {
            case (nil, nil): near = nil
            case (let lat?, let lon?): near = try Coordinate(latitude: lat, longitude: lon)
            default:
                throw ValidationError(.invalidCoordinate, field: latitude == nil ? "lat" : "lon", "lat and lon must be given together")
            }
            let query = try PlaceQuery(
                // Form encoding writes spaces as `+` ("sao+p"); no place name needs a literal plus.
                text: (parameter("q") ?? "").replacingOccurrences(of: "+", with: " "), near: near, limit: limit ?? 10,
                radiusKilometres: radius ?? PlaceQuery.defaultRadiusKilometres, languages: languages)
            return (query, format)
        } catch {
            throw APIError(error)
        }
    }

    /// A plain decimal number; nil when the parameter is absent.
    static func number(_ raw: String?, name: String) throws(APIError) -> Double? {
        guard let raw else { return nil }
        let allowed = Set("0123456789+-.eE")
        guard !raw.isEmpty, raw.allSatisfy(allowed.contains), let value = Double(raw), value.isFinite else {
            let code: ValidationError.Code = name == "radius_km" ? .invalidField : .invalidCoordinate
            throw APIError.badRequest(code, "\(name) must be a decimal number")
        }
        return value
    }
}

/// One result as answered.
struct PlaceResult: Encodable {
    let match: PlaceMatch

    enum CodingKeys: String, CodingKey {
        case id, name, label, box, population, timezone, country, admin1, latitude, longitude
        case matchedName = "matched_name"
        case countryCode = "country_code"
        case featureCode = "feature_code"
        case distanceKm = "distance_km"
    }

    /// "Espoo, Uusimaa, Finland": the name with whichever division and country names are known.
    var label: String {
        var parts = [match.displayName]
        if let admin1 = match.admin1Name, !admin1.isEmpty, admin1 != match.displayName { parts.append(admin1) }
        if let country = match.countryName, !country.isEmpty {
            parts.append(country)
        } else if !match.place.countryCode.isEmpty {
            parts.append(match.place.countryCode)
        }
        return parts.joined(separator: ", ")
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try encodeProperties(into: &c)
        try c.encode(match.place.coordinate.latitude, forKey: .latitude)
        try c.encode(match.place.coordinate.longitude, forKey: .longitude)
    }

    /// Every field but the coordinates (GeoJSON carries those in its geometry).
    func encodeProperties(into c: inout KeyedEncodingContainer<CodingKeys>) throws {
        let place = match.place
        try c.encode(place.id, forKey: .id)
        try c.encode(match.displayName, forKey: .name)
        try c.encode(match.matchedName, forKey: .matchedName)
        try c.encode(label, forKey: .label)
        try c.encode(place.countryCode, forKey: .countryCode)
        try c.encode(match.countryName, forKey: .country)
        try c.encode(match.admin1Name, forKey: .admin1)
        try c.encode(place.population, forKey: .population)
        try c.encode(place.featureCode, forKey: .featureCode)
        try c.encode(place.timezone, forKey: .timezone)
        try c.encode(match.distanceKilometres.map { ($0 * 100).rounded() / 100 }, forKey: .distanceKm)
        try c.encode(place.box.description, forKey: .box)
    }
}

/// `{"query": …, "results": […]}`, and `"meta": {"hint": …}` when the places cover little.
struct PlaceSearchResponse: Encodable {
    struct Meta: Encodable {
        let hint: String
    }

    struct Echo: Encodable {
        let q: String
        let latitude: Double?
        let longitude: Double?
        let limit: Int
        let radiusKm: Double?
        let languages: [String]

        enum CodingKeys: String, CodingKey {
            case q, latitude, longitude, limit, languages
            case radiusKm = "radius_km"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(q, forKey: .q)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(limit, forKey: .limit)
            try c.encode(radiusKm, forKey: .radiusKm)
            try c.encode(languages, forKey: .languages)
        }
    }

    let query: Echo
    let results: [PlaceResult]
    let meta: Meta?

    init(query: PlaceQuery, matches: [PlaceMatch], hint: String? = nil) {
        meta = hint.map(Meta.init(hint:))
        self.query = Echo(
            q: query.text, latitude: query.near?.latitude, longitude: query.near?.longitude, limit: query.limit,
            radiusKm: query.near == nil ? nil : query.radiusKilometres, languages: query.languages)
        self.results = matches.map(PlaceResult.init(match:))
    }
}

/// The results as a GeoJSON FeatureCollection (RFC 7946): `[longitude, latitude]` points.
struct PlaceFeatureCollection: Encodable {
    struct Feature: Encodable {
        struct Geometry: Encodable {
            let type = "Point"
            let coordinates: [Double]
        }

        struct Properties: Encodable {
            let result: PlaceResult
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: PlaceResult.CodingKeys.self)
                try result.encodeProperties(into: &c)
            }
        }

        let type = "Feature"
        let id: Int64
        let geometry: Geometry
        let properties: Properties
    }

    let type = "FeatureCollection"
    let features: [Feature]

    init(matches: [PlaceMatch]) {
        features = matches.map { match in
            Feature(
                id: match.place.id,
                geometry: .init(coordinates: [match.place.coordinate.longitude, match.place.coordinate.latitude]),
                properties: .init(result: PlaceResult(match: match)))
        }
    }
}
