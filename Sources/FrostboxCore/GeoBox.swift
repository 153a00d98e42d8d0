/// A 0.05° geobox: the unit of work. A coordinate belongs to the box whose centre is the
/// nearest multiple of 0.05° on each axis. Longitude wraps (the 180° and −180° boxes are one
/// box, stored as 180°); latitude stops at ±90°.
public struct GeoBox: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Edge length of a box in degrees.
    public static let size = 0.05
    /// Boxes per degree.
    public static let perDegree = 20
    /// Largest latitude index (90°).
    public static let maxLatitudeIndex = 90 * perDegree
    /// Longitude indices run over `-(halfTurn - 1)...halfTurn`.
    public static let halfTurn = 180 * perDegree
    /// How far, in box sizes, a box centre may lie from a point on each axis to count as a neighbour.
    public static let neighbourReach = 0.8

    /// Latitude index: centre latitude = index × 0.05°, in −1800...1800.
    public let latitudeIndex: Int
    /// Longitude index: centre longitude = index × 0.05°, in −3599...3600.
    public let longitudeIndex: Int

    /// Builds a box from indices, normalising the longitude index and clamping latitude.
    public init(latitudeIndex: Int, longitudeIndex: Int) {
        self.latitudeIndex = min(max(latitudeIndex, -Self.maxLatitudeIndex), Self.maxLatitudeIndex)
        self.longitudeIndex = Self.normaliseLongitudeIndex(longitudeIndex)
    }

    /// The box containing a coordinate (`round(value / 0.05)` on each axis).
    public init(_ coordinate: Coordinate) {
        self.init(
            latitudeIndex: Self.index(of: coordinate.latitude),
            longitudeIndex: Self.index(of: coordinate.longitude)
        )
    }

    /// The box index of a value in degrees: `round(value / 0.05)`.
    public static func index(of degrees: Double) -> Int {
        Int((degrees / size).rounded())
    }

    static func normaliseLongitudeIndex(_ index: Int) -> Int {
        let turn = 2 * halfTurn
        var wrapped = index % turn
        if wrapped <= -halfTurn { wrapped += turn }
        if wrapped > halfTurn { wrapped -= turn }
        return wrapped
    }

    /// Centre latitude in degrees.
    public var latitude: Double { Double(latitudeIndex) / Double(Self.perDegree) }
    /// Centre longitude in degrees, in (−180, 180].
    public var longitude: Double { Double(longitudeIndex) / Double(Self.perDegree) }
    /// The centre as a coordinate.
    public var centre: Coordinate { Coordinate(uncheckedLatitude: latitude, longitude: longitude) }

    // MARK: Compact key

    static let keyStride = Int64(2 * halfTurn)

    /// A compact integer key for indexes; latitude-major so nearby rows share pages.
    public var key: Int64 {
        Int64(latitudeIndex + Self.maxLatitudeIndex) * Self.keyStride
            + Int64(longitudeIndex + Self.halfTurn - 1)
    }

    /// The box with a given key, or nil when the key is out of range.
    public init?(key: Int64) {
        guard key >= 0 else { return nil }
        let lat = Int(key / Self.keyStride) - Self.maxLatitudeIndex
        let lon = Int(key % Self.keyStride) - Self.halfTurn + 1
        guard abs(lat) <= Self.maxLatitudeIndex else { return nil }
        self.init(latitudeIndex: lat, longitudeIndex: lon)
    }

    // MARK: Text form

    /// Text form for display, e.g. `60.20#25.05`.
    public var description: String {
        "\(Self.format(index: latitudeIndex))#\(Self.format(index: longitudeIndex))"
    }

    /// Parses the text form `60.20#25.05`.
    public init?(text: String) {
        let parts = text.split(separator: "#", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
            lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180
        else { return nil }
        self.init(latitudeIndex: Self.index(of: lat), longitudeIndex: Self.index(of: lon))
    }

    static func format(index: Int) -> String {
        let hundredths = abs(index) * 5
        let fraction = hundredths % 100
        let sign = index < 0 ? "-" : ""
        return "\(sign)\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    public static func < (lhs: GeoBox, rhs: GeoBox) -> Bool { lhs.key < rhs.key }
}

extension GeoBox {
    /// The boxes whose centre lies within 0.8 × 0.05° of the point on both axes: 1, 2 or 4 boxes.
    public static func neighbourhood(of coordinate: Coordinate) -> [GeoBox] {
        let reach = neighbourReach * size
        let latIndices = candidates(coordinate.latitude).filter { index in
            abs(index) <= maxLatitudeIndex
                && abs(Double(index) * size - coordinate.latitude) <= reach + 1e-12
        }
        let lonIndices = candidates(coordinate.longitude).filter { index in
            longitudeDistance(Double(index) * size, coordinate.longitude) <= reach + 1e-12
        }
        var boxes: [GeoBox] = []
        for lat in latIndices {
            for lon in lonIndices {
                let box = GeoBox(latitudeIndex: lat, longitudeIndex: lon)
                if !boxes.contains(box) { boxes.append(box) }
            }
        }
        return boxes
    }

    private static func candidates(_ degrees: Double) -> [Int] {
        let scaled = degrees / size
        return [Int(scaled.rounded(.down)), Int(scaled.rounded(.up))].reduce(into: []) { list, i in
            if !list.contains(i) { list.append(i) }
        }
    }

    /// Angular distance between two longitudes, across the antimeridian when shorter.
    public static func longitudeDistance(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    /// The boxes at exactly `ring` steps (Chebyshev distance) from this one, wrapping in
    /// longitude and stopping at the poles. Ring 0 is the box itself.
    public func ring(_ ring: Int) -> [GeoBox] {
        guard ring > 0 else { return [self] }
        var boxes: [GeoBox] = []
        var seen = Set<GeoBox>()
        func add(_ lat: Int, _ lon: Int) {
            guard abs(lat) <= Self.maxLatitudeIndex else { return }
            let box = GeoBox(latitudeIndex: lat, longitudeIndex: lon)
            if seen.insert(box).inserted { boxes.append(box) }
        }
        let turn = 2 * Self.halfTurn
        let span = min(ring, Self.halfTurn)
        for dLon in -span...span {
            add(latitudeIndex - ring, longitudeIndex + dLon)
            add(latitudeIndex + ring, longitudeIndex + dLon)
        }
        if ring * 2 < turn {
            for dLat in (-ring + 1)..<ring {
                add(latitudeIndex + dLat, longitudeIndex - ring)
                add(latitudeIndex + dLat, longitudeIndex + ring)
            }
        }
        return boxes
    }
}
