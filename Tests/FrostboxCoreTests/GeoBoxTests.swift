import FrostboxCore
import Testing

@Suite("GeoBox")
struct GeoBoxTests {
    static func box(_ lat: Double, _ lon: Double) throws -> GeoBox {
        try Coordinate(latitude: lat, longitude: lon).box
    }

    @Test(
        "a coordinate falls in the box of the nearest 0.05° centre",
        arguments: [
            (60.17, 24.94, "60.15#24.95"),
            (60.1749, 24.9749, "60.15#24.95"),
            (60.19, 25.01, "60.20#25.00"),
            (0.0, 0.0, "0.00#0.00"),
            (-33.87, 151.21, "-33.85#151.20"),
            (-0.01, -0.01, "0.00#0.00"),
            (-0.03, -0.03, "-0.05#-0.05"),
            (90.0, 10.0, "90.00#10.00"),
            (-90.0, -10.0, "-90.00#-10.00"),
            (89.99, 0.0, "90.00#0.00"),
            (12.0, 179.99, "12.00#180.00"),
            (12.0, -179.99, "12.00#180.00"),
            (12.0, 180.0, "12.00#180.00"),
            (12.0, -180.0, "12.00#180.00"),
            (12.0, -179.97, "12.00#-179.95"),
        ])
    func boxOfCoordinate(lat: Double, lon: Double, text: String) throws {
        #expect(try Self.box(lat, lon).description == text)
    }

    @Test("the 180° and −180° boxes are one box with one key")
    func antimeridianIsOneBox() throws {
        let east = try Self.box(0, 180)
        let west = try Self.box(0, -180)
        #expect(east == west)
        #expect(east.key == west.key)
        #expect(try Self.box(0, 179.99) == Self.box(0, -179.99))
    }

    @Test("the key round-trips for every box on a coarse global grid, including poles and antimeridian")
    func keyRoundTrip() throws {
        var keys = Set<Int64>()
        for lat in stride(from: -1800, through: 1800, by: 37) + [-1800, 1800] {
            for lon in stride(from: -3599, through: 3600, by: 53) + [-3599, 3600] {
                let box = GeoBox(latitudeIndex: lat, longitudeIndex: lon)
                #expect(GeoBox(key: box.key) == box)
                keys.insert(box.key)
            }
        }
        #expect(GeoBox(key: -1) == nil)
        let lats = Set(Array(stride(from: -1800, through: 1800, by: 37)) + [-1800, 1800]).count
        let lons = Set(Array(stride(from: -3599, through: 3600, by: 53)) + [-3599, 3600]).count
        #expect(keys.count == lats * lons)
    }

    @Test("distinct boxes never share a key")
    func keysAreInjective() {
        var seen = [Int64: GeoBox]()
        for lat in [-1800, -1799, -1, 0, 1, 1799, 1800] {
            for lon in [-3599, -3598, -1, 0, 1, 3599, 3600] {
                let box = GeoBox(latitudeIndex: lat, longitudeIndex: lon)
                #expect(seen[box.key] == nil, "key \(box.key) of \(box) already used by \(seen[box.key].map(String.init(describing:)) ?? "")")
                seen[box.key] = box
            }
        }
        #expect(seen.count == 49)
    }

    @Test("text form parses back", arguments: ["60.20#25.05", "-33.85#151.20", "90.00#180.00", "0.00#-0.05"])
    func textRoundTrip(text: String) {
        #expect(GeoBox(text: text)?.description == text)
    }

    @Test("bad text forms are refused", arguments: ["", "60.2", "a#b", "91#0", "0#181", "1#2#3", "nan#0"])
    func badText(text: String) {
        #expect(GeoBox(text: text) == nil)
    }

    @Test(
        "neighbourhood: boxes whose centre is within 0.8 × 0.05° on both axes",
        arguments: [
            // At a centre: only its own box.
            (60.20, 25.00, ["60.20#25.00"]),
            // 0.02° off-centre on latitude: 0.03° from the next centre, within 0.04°.
            (60.22, 25.00, ["60.20#25.00", "60.25#25.00"]),
            // Near a corner: four boxes.
            (60.225, 25.025, ["60.20#25.00", "60.20#25.05", "60.25#25.00", "60.25#25.05"]),
            // 0.005° off-centre: the next centre is 0.045° away, beyond 0.04°.
            (60.205, 25.005, ["60.20#25.00"]),
        ])
    func neighbourhood(lat: Double, lon: Double, expected: [String]) throws {
        let boxes = GeoBox.neighbourhood(of: try Coordinate(latitude: lat, longitude: lon))
        #expect(Set(boxes.map(\.description)) == Set(expected))
    }

    @Test("neighbourhood wraps across the antimeridian")
    func neighbourhoodAntimeridian() throws {
        let boxes = GeoBox.neighbourhood(of: try Coordinate(latitude: 10, longitude: 179.98))
        #expect(Set(boxes.map(\.description)) == ["10.00#180.00", "10.00#179.95"])
        let west = GeoBox.neighbourhood(of: try Coordinate(latitude: 10, longitude: -179.97))
        #expect(Set(west.map(\.description)) == ["10.00#180.00", "10.00#-179.95"])
    }

    @Test("neighbourhood stops at the poles")
    func neighbourhoodPoles() throws {
        let north = GeoBox.neighbourhood(of: try Coordinate(latitude: 89.995, longitude: 0))
        #expect(north.allSatisfy { $0.latitudeIndex <= 1800 })
        #expect(Set(north.map(\.description)) == ["90.00#0.00"])
        let south = GeoBox.neighbourhood(of: try Coordinate(latitude: -89.98, longitude: 0.02))
        #expect(Set(south.map(\.description)) == ["-90.00#0.00", "-89.95#0.00", "-90.00#0.05", "-89.95#0.05"])
    }

    @Test("property: the point's own box is always in its neighbourhood, which has 1, 2 or 4 boxes")
    func neighbourhoodProperty() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let lat = generator.nextDouble(in: -90...90)
            let lon = generator.nextDouble(in: -180...180)
            let point = try Coordinate(latitude: lat, longitude: lon)
            let boxes = GeoBox.neighbourhood(of: point)
            #expect(boxes.contains(point.box), "\(point) not in its own neighbourhood")
            #expect([1, 2, 4].contains(boxes.count) || (abs(lat) > 89.9 && boxes.count <= 4), "\(point): \(boxes.count)")
            for box in boxes {
                #expect(abs(box.latitude - lat) <= 0.04 + 1e-9)
                #expect(GeoBox.longitudeDistance(box.longitude, lon) <= 0.04 + 1e-9)
            }
        }
    }

    @Test("property: the centre of a box lies within half a box of every point in it")
    func centreProperty() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let point = try Coordinate(latitude: generator.nextDouble(in: -90...90), longitude: generator.nextDouble(in: -180...180))
            let box = point.box
            #expect(abs(box.latitude - point.latitude) <= 0.025 + 1e-9)
            #expect(GeoBox.longitudeDistance(box.longitude, point.longitude) <= 0.025 + 1e-9)
        }
    }

    @Test("rings: ring n has 8n boxes away from poles and wraps the antimeridian")
    func rings() {
        let box = GeoBox(latitudeIndex: 1200, longitudeIndex: 3600)
        #expect(box.ring(0) == [box])
        #expect(box.ring(1).count == 8)
        #expect(box.ring(3).count == 24)
        #expect(box.ring(1).contains(GeoBox(latitudeIndex: 1200, longitudeIndex: -3599)))
        let pole = GeoBox(latitudeIndex: 1800, longitudeIndex: 0)
        #expect(pole.ring(1).count == 5)
        #expect(pole.ring(1).allSatisfy { $0.latitudeIndex == 1800 || $0.latitudeIndex == 1799 })
    }
}

extension SplitMix64 {
    mutating func nextDouble(in range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}
