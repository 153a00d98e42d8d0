/// A validated WGS84 coordinate: finite, latitude in [−90, 90], longitude in [−180, 180].
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees north.
    public let latitude: Double
    /// Degrees east.
    public let longitude: Double

    /// Validates a coordinate; throws `ValidationError` naming the bad field.
    public init(latitude: Double, longitude: Double) throws(ValidationError) {
        guard latitude.isFinite else {
            throw ValidationError(.invalidCoordinate, field: "latitude", "latitude must be a finite number")
        }
        guard longitude.isFinite else {
            throw ValidationError(.invalidCoordinate, field: "longitude", "longitude must be a finite number")
        }
        guard (-90...90).contains(latitude) else {
            throw ValidationError(.invalidCoordinate, field: "latitude", "latitude must be within [-90, 90]")
        }
        guard (-180...180).contains(longitude) else {
            throw ValidationError(.invalidCoordinate, field: "longitude", "longitude must be within [-180, 180]")
        }
        // Adding +0 turns -0 into 0: a stored -0 reads back as 0, so the echo of a new
        // subscription must not say -0 either.
        self.latitude = latitude + 0
        self.longitude = longitude + 0
    }

    /// For values already known to be valid (box centres, stored rows).
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The geobox this coordinate falls in.
    public var box: GeoBox { GeoBox(self) }

    /// Whether two coordinates are the same place to within 1e-6° on both axes.
    public func isSamePoint(as other: Coordinate, tolerance: Double = 1e-6) -> Bool {
        abs(latitude - other.latitude) <= tolerance
            && GeoBox.longitudeDistance(longitude, other.longitude) <= tolerance
    }

    /// Great-circle distance in kilometres (haversine, mean Earth radius).
    public func distanceKilometres(to other: Coordinate) -> Double {
        let r = 6371.0088
        let toRad = Double.pi / 180
        let dLat = (other.latitude - latitude) * toRad
        let dLon = (other.longitude - longitude) * toRad
        let a =
            sinHalfSquared(dLat)
            + cosine(latitude * toRad) * cosine(other.latitude * toRad) * sinHalfSquared(dLon)
        return 2 * r * arcsine(min(1, a.squareRoot()))
    }

    public var description: String { "\(latitude),\(longitude)" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let lat = try c.decode(Double.self, forKey: .latitude)
        let lon = try c.decode(Double.self, forKey: .longitude)
        try self.init(latitude: lat, longitude: lon)
    }
}
