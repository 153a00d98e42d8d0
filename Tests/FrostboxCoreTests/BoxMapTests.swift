import FrostboxCore
import Testing

@Suite("Box map")
struct BoxMapTests {
    static let now: Int64 = 1_795_000_000

    /// A night ending `hoursFromNow` after `now`.
    static func night(_ day: Int, _ level: FrostLevel, endsIn hoursFromNow: Int64, minimum: Double = 0) -> BoxNight {
        BoxNight(night: LocalDate(year: 2026, month: 11, day: day), level: level, minimumC: minimum, windowEnd: now + hoursFromNow * 3_600)
    }

    static func entry(_ box: GeoBox, _ mapClass: BoxMapClass, subscribers: Int = 1) -> BoxMapEntry {
        let state = SubscribedBox(box: box, subscribers: subscribers, forecastFetchedAt: now, failingSince: mapClass == .fetchFailing ? now : nil)
        let level: FrostLevel? =
            switch mapClass {
            case .none: FrostLevel.none
            case .frostRisk: .frostRisk
            case .freeze: .freeze
            case .hardFreeze: .hardFreeze
            case .noForecast, .fetchFailing: nil
            }
        return BoxMapEntry(state: state, nights: level.map { [night(20, $0, endsIn: 10)] } ?? [], now: now)
    }

    @Test("a box's class: failing fetch first, then no night ahead, then the worse of tonight and tomorrow")
    func classification() {
        let box = GeoBox(latitudeIndex: 1200, longitudeIndex: 500)
        let fresh = SubscribedBox(box: box, subscribers: 2, forecastFetchedAt: Self.now - 600)
        let nights = [
            Self.night(19, .hardFreeze, endsIn: -20), Self.night(20, .frostRisk, endsIn: 4, minimum: 1.5), Self.night(21, .freeze, endsIn: 28, minimum: -1),
            Self.night(22, .hardFreeze, endsIn: 52),
        ]
        let entry = BoxMapEntry(state: fresh, nights: nights, now: Self.now)
        // The ended night and the one after tomorrow do not count.
        #expect(entry.mapClass == .freeze)
        #expect(entry.tonight?.night.day == 20)
        #expect(entry.tonight?.minimumC == 1.5)
        #expect(entry.tomorrow?.night.day == 21)
        #expect(BoxMapEntry(state: fresh, nights: [Self.night(20, .none, endsIn: 4)], now: Self.now).mapClass == .none)
        #expect(BoxMapEntry(state: fresh, nights: [Self.night(19, .hardFreeze, endsIn: 0)], now: Self.now).mapClass == .noForecast)
        #expect(BoxMapEntry(state: fresh, nights: [], now: Self.now).mapClass == .noForecast)
        var failing = fresh
        failing.failingSince = Self.now - 60
        failing.failure = "timeout"
        let failingEntry = BoxMapEntry(state: failing, nights: nights, now: Self.now)
        #expect(failingEntry.mapClass == .fetchFailing)
        // The stale forecast's nights are still shown.
        #expect(failingEntry.tonight?.level == .frostRisk)
    }

    @Test("nights come from the rule's verdict over the cached hours")
    func nightsFromForecast() {
        // UTC place, 48 hours from 12:00: two full nights (18:00–10:00), the first at −1 °C, the second at 5 °C.
        let start: Int64 = 1_795_003_200 - (1_795_003_200 % 86_400) + 12 * 3_600
        let hours = (0..<48).map { i -> ForecastHour in
            let time = start + Int64(i) * 3_600
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time), temperatureC: i < 24 ? -1 : 5, cloudCoverPercent: 0, windSpeedKmh: 0)
        }
        let forecast = BoxForecast(
            box: GeoBox(latitudeIndex: 0, longitudeIndex: 0), timezone: "UTC", utcOffsetSeconds: 0, gridLatitude: 0, gridLongitude: 0, elevation: nil,
            fetchedAt: start, hours: hours)
        let nights = BoxNight.nights(of: forecast, rule: .default)
        #expect(nights.map(\.level) == [.freeze, .none])
        #expect(nights.first?.minimumC == -1)
        #expect(nights.first?.windowEnd == start + 22 * 3_600)
    }

    @Test(
        "viewports are validated",
        arguments: [
            (-180.0, -91.0, 180.0, 90.0, 0), (-180, -90, 180, 90.5, 0), (-600, -90, 180, 90, 0), (-180, -90, 541, 90, 0),
            (-180, -90, 180, 90, -1), (-180, -90, 180, 90, 21), (Double.nan, -90, 180, 90, 0), (-180, -90, .infinity, 90, 0),
        ])
    func invalidViewports(west: Double, south: Double, east: Double, north: Double, zoom: Int) {
        #expect(throws: ValidationError.self) { try BoxMapViewport(west: west, south: south, east: east, north: north, zoom: zoom) }
    }

    @Test("any bounds within range name a view: latitudes in either order, west past east across the antimeridian, 360° or more the world")
    func lenientViewports() throws {
        let swapped = try BoxMapViewport(west: -10, south: 10, east: 10, north: -10, zoom: 3)
        #expect(swapped.south == -10 && swapped.north == 10)
        #expect(swapped.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 0)))
        let across = try BoxMapViewport(west: 170, south: -10, east: -170, north: 10, zoom: 5)
        #expect(across.east == 190)
        #expect(across.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 3600)))
        #expect(!across.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 0)))
        let far = try BoxMapViewport(west: 500, south: -90, east: -500, north: 90, zoom: 0)
        #expect(far.east >= far.west && far.east - far.west < 360)
        let wide = try BoxMapViewport(west: -540, south: -90, east: 540, north: 90, zoom: 0)
        #expect(wide.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 1234)))
    }

    @Test("a viewport across the antimeridian holds boxes on both sides and nothing in between")
    func antimeridianViewport() throws {
        let view = try BoxMapViewport(west: 170, south: -10, east: 190, north: 10, zoom: 5)
        #expect(view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 3600)))  // 180°
        #expect(view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: -3599)))  // −179.95°
        #expect(view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: -3500)))  // −175°
        #expect(view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 3500)))  // 175°
        #expect(!view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 0)))
        #expect(!view.contains(GeoBox(latitudeIndex: 0, longitudeIndex: -3300)))  // −165°
        #expect(!view.contains(GeoBox(latitudeIndex: 400, longitudeIndex: 3600)))  // 20° N
        let west = try BoxMapViewport(west: -190, south: -10, east: -170, north: 10, zoom: 5)
        #expect(west.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 3600)))
        #expect(west.contains(GeoBox(latitudeIndex: 0, longitudeIndex: 3500)))
        #expect(!west.contains(GeoBox(latitudeIndex: 0, longitudeIndex: -3300)))
    }

    @Test("cell size halves per zoom level, single boxes from zoom 8")
    func cellSizes() throws {
        let sizes = try (0...9).map { try BoxMapViewport(west: -180, south: -90, east: 180, north: 90, zoom: $0).boxesPerCell }
        #expect(sizes == [256, 128, 64, 32, 16, 8, 4, 2, 1, 1])
    }

    @Test("cells count boxes, subscribers and classes, and show the most severe class")
    func cells() throws {
        // Four boxes in one 256-box cell near Helsinki, one in Sydney.
        let entries = [
            Self.entry(GeoBox(latitudeIndex: 1204, longitudeIndex: 499), .none, subscribers: 3),
            Self.entry(GeoBox(latitudeIndex: 1205, longitudeIndex: 500), .fetchFailing),
            Self.entry(GeoBox(latitudeIndex: 1206, longitudeIndex: 501), .frostRisk, subscribers: 2),
            Self.entry(GeoBox(latitudeIndex: 1207, longitudeIndex: 502), .noForecast),
            Self.entry(GeoBox(latitudeIndex: -677, longitudeIndex: 3024), .hardFreeze),
        ]
        let map = BoxMap(entries: entries, viewport: .world)
        #expect(map.boxesPerCell == 256)
        #expect(map.boxes.isEmpty)
        #expect(map.totalBoxes == 5)
        #expect(map.totals == [.none: 1, .fetchFailing: 1, .frostRisk: 1, .noForecast: 1, .hardFreeze: 1])
        #expect(map.cells.count == 2)
        let helsinki = try #require(map.cells.first { $0.latitude > 0 })
        #expect(helsinki.boxes == 4)
        #expect(helsinki.subscribers == 7)
        #expect(helsinki.mapClass == .frostRisk)
        #expect(helsinki.classes == [.none: 1, .fetchFailing: 1, .frostRisk: 1, .noForecast: 1])
        #expect(abs(helsinki.latitude - 60.275) < 1e-9)
        // The cell's square holds its boxes' centres.
        for entry in entries.prefix(4) {
            #expect(entry.state.box.latitude >= helsinki.south && entry.state.box.latitude <= helsinki.south + helsinki.size)
            #expect(entry.state.box.longitude >= helsinki.west && entry.state.box.longitude <= helsinki.west + helsinki.size)
        }
    }

    @Test("boxes at 180° and −179.95° fall in the last and first columns; pole boxes stay within ±90°")
    func edges() {
        let entries = [
            Self.entry(GeoBox(latitudeIndex: 0, longitudeIndex: 3600), .freeze),
            Self.entry(GeoBox(latitudeIndex: 0, longitudeIndex: -3599), .none),
            Self.entry(GeoBox(latitudeIndex: 1800, longitudeIndex: 0), .frostRisk),
            Self.entry(GeoBox(latitudeIndex: -1800, longitudeIndex: 0), .hardFreeze),
        ]
        for zoom in [0, 3, 7] {
            let map = BoxMap(entries: entries, viewport: try! BoxMapViewport(west: -180, south: -90, east: 180, north: 90, zoom: zoom))
            #expect(map.cells.count == 4, "zoom \(zoom)")
            for cell in map.cells {
                #expect(cell.west >= -180.025 && cell.west + cell.size <= 180.025 + cell.size, "zoom \(zoom): \(cell)")
                #expect(cell.latitude >= -90 && cell.latitude <= 90)
                #expect(cell.longitude > -180 && cell.longitude <= 180)
            }
            let east = map.cells.first { $0.mapClass == .freeze }!
            let west = map.cells.first { $0.mapClass == .none }!
            #expect(east.longitude == 180)
            #expect(west.longitude == -179.95)
            // The −179.95° box spans −179.975…−179.925: the first column starts there.
            #expect(abs(west.west + 179.975) < 1e-9)
            let north = map.cells.first { $0.mapClass == .frostRisk }!
            #expect(north.latitude == 90)
        }
    }

    @Test("zoomed in, single boxes in view; past 5,000 of them, 2 × 2 cells")
    func singleBoxes() throws {
        let near = (0..<10).map { Self.entry(GeoBox(latitudeIndex: 1200, longitudeIndex: 500 + $0), .freeze) }
        let far = Self.entry(GeoBox(latitudeIndex: -600, longitudeIndex: -1000), .none)
        let view = try BoxMapViewport(west: 24.9, south: 59.9, east: 25.6, north: 60.1, zoom: 10)
        let map = BoxMap(entries: near + [far], viewport: view)
        #expect(map.boxesPerCell == 1)
        #expect(map.boxes.count == 10)
        #expect(map.boxesInView == 10)
        #expect(map.totalBoxes == 11)
        #expect(map.cells.isEmpty)
        let crowd = (0..<5_001).map { Self.entry(GeoBox(latitudeIndex: $0 / 100, longitudeIndex: $0 % 100), .none) }
        let crowded = BoxMap(entries: crowd, viewport: try BoxMapViewport(west: -1, south: -1, east: 6, north: 3, zoom: 8))
        #expect(crowded.boxesPerCell == 2)
        #expect(crowded.boxes.isEmpty)
        #expect(crowded.cells.map(\.boxes).reduce(0, +) == 5_001)
    }
}
