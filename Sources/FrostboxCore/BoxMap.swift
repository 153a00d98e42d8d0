/// The colour class of a box on the status map: its latest verdict, or why it has none.
public enum BoxMapClass: String, Sendable, Hashable, CaseIterable, Codable {
    case none
    case frostRisk = "frost-risk"
    case freeze
    case hardFreeze = "hard-freeze"
    /// Never fetched, or every night of its forecast has ended.
    case noForecast = "no-forecast"
    /// The box's last forecast fetch failed.
    case fetchFailing = "fetch-failing"

    /// The class of a frost level.
    public init(_ level: FrostLevel) {
        switch level {
        case .none: self = .none
        case .frostRisk: self = .frostRisk
        case .freeze: self = .freeze
        case .hardFreeze: self = .hardFreeze
        }
    }

    /// Which class a cell of many boxes shows: frost outranks trouble, trouble outranks calm.
    public var severity: Int {
        switch self {
        case .none: 0
        case .noForecast: 1
        case .fetchFailing: 2
        case .frostRisk: 3
        case .freeze: 4
        case .hardFreeze: 5
        }
    }
}

/// A box with subscriptions as the store knows it: how many devices watch it, its fetch state
/// and when its cached forecast was fetched.
public struct SubscribedBox: Sendable, Hashable {
    public var box: GeoBox
    /// Distinct devices with a subscription in the box.
    public var subscribers: Int
    /// When the cached forecast was fetched (UTC epoch seconds); nil: none cached.
    public var forecastFetchedAt: Int64?
    /// Since when fetching the box fails; nil: its last fetch succeeded or it was never tried.
    public var failingSince: Int64?
    /// The last fetch failure, as recorded.
    public var failure: String?

    public init(box: GeoBox, subscribers: Int, forecastFetchedAt: Int64? = nil, failingSince: Int64? = nil, failure: String? = nil) {
        self.box = box
        self.subscribers = subscribers
        self.forecastFetchedAt = forecastFetchedAt
        self.failingSince = failingSince
        self.failure = failure
    }
}

/// The read side the status map needs: boxes with subscriptions and their place names. Read
/// only; separate from the notifier's store so that the two evolve apart.
public protocol BoxMapSource: Sendable {
    /// Every box with at least one subscription, ordered by box key.
    func subscribedBoxes() async throws -> [SubscribedBox]
    /// The distinct subscription names in each of `boxes`, at most `limit` per box, by box.
    func placeNames(in boxes: [GeoBox], limit: Int) async throws -> [GeoBox: [String]]
}

/// One night of a box's forecast, as the map shows it.
public struct BoxNight: Sendable, Hashable {
    /// Local date of the evening the night starts on.
    public var night: LocalDate
    public var level: FrostLevel
    /// Lowest temperature of the night, °C.
    public var minimumC: Double?
    /// End of the night's counted window, UTC epoch seconds.
    public var windowEnd: Int64

    public init(night: LocalDate, level: FrostLevel, minimumC: Double?, windowEnd: Int64) {
        self.night = night
        self.level = level
        self.minimumC = minimumC
        self.windowEnd = windowEnd
    }

    /// Every night `rule` sees in `forecast`, in time order.
    public static func nights(of forecast: BoxForecast, rule: FrostRule) -> [BoxNight] {
        rule.evaluate(forecast.hours).nights.map { BoxNight(night: $0.night, level: $0.level, minimumC: $0.minimumC, windowEnd: $0.windowEnd) }
    }
}

/// Everything the map says about one box at a moment.
public struct BoxMapEntry: Sendable, Hashable {
    public var state: SubscribedBox
    /// The first night not over at the moment asked for.
    public var tonight: BoxNight?
    /// The night after it.
    public var tomorrow: BoxNight?
    public var mapClass: BoxMapClass

    /// The entry of `state` at `now`, given the nights of its cached forecast (empty: none).
    public init(state: SubscribedBox, nights: [BoxNight], now: Int64) {
        self.state = state
        let ahead = nights.filter { $0.windowEnd > now }
        tonight = ahead.first
        tomorrow = ahead.dropFirst().first
        if state.failingSince != nil {
            mapClass = .fetchFailing
        } else if let tonight {
            mapClass = BoxMapClass(max(tonight.level, tomorrow?.level ?? .none))
        } else {
            mapClass = .noForecast
        }
    }
}

/// The part of the world a map request shows. Longitudes may run past ±180° (a view panned
/// across the antimeridian); latitudes stay within ±90°.
public struct BoxMapViewport: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    /// Web-map zoom: the world is 256 × 2^zoom pixels wide.
    public var zoom: Int

    /// Highest zoom accepted.
    public static let maximumZoom = 20
    public static let world = BoxMapViewport(uncheckedWest: -180, south: -90, east: 180, north: 90, zoom: 0)

    init(uncheckedWest west: Double, south: Double, east: Double, north: Double, zoom: Int) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.zoom = zoom
    }

    /// A validated viewport: finite bounds, latitudes within ±90° and longitudes within ±540°,
    /// zoom within 0…20. Any such values name a view: `south > north` are the same two
    /// latitudes, `west > east` a view across the antimeridian (east is read 360° further), and
    /// a span of 360° or more the whole world.
    public init(west: Double, south: Double, east: Double, north: Double, zoom: Int) throws(ValidationError) {
        for (name, value) in [("west", west), ("south", south), ("east", east), ("north", north)] where !value.isFinite {
            throw ValidationError(.invalidField, field: name, "\(name) must be a number")
        }
        for (name, value) in [("south", south), ("north", north)] where !(-90...90).contains(value) {
            throw ValidationError(.invalidField, field: name, "\(name) must lie within -90…90")
        }
        for (name, value) in [("west", west), ("east", east)] where !(-540...540).contains(value) {
            throw ValidationError(.invalidField, field: name, "\(name) must lie within -540…540")
        }
        guard (0...Self.maximumZoom).contains(zoom) else {
            throw ValidationError(.invalidField, field: "zoom", "zoom must be an integer within 0…\(Self.maximumZoom)")
        }
        var east = east
        while east < west { east += 360 }
        self.init(uncheckedWest: west, south: min(south, north), east: east, north: max(south, north), zoom: zoom)
    }

    /// Whether a box (by its centre, with half a box of margin) lies in the viewport, the
    /// longitude compared modulo 360° so that views across the antimeridian work.
    public func contains(_ box: GeoBox) -> Bool {
        let margin = GeoBox.size / 2
        guard box.latitude + margin >= south, box.latitude - margin <= north else { return false }
        let span = east - west
        if span + 2 * margin >= 360 { return true }
        var offset = (box.longitude + margin - west).truncatingRemainder(dividingBy: 360)
        if offset < 0 { offset += 360 }
        return offset <= span + 2 * margin
    }

    /// Boxes per cell edge at this zoom: the smallest power of two whose cell is at least
    /// about 8 pixels wide (1 from zoom 8 on, where single boxes are drawn).
    public var boxesPerCell: Int {
        let degreesPerPixel = 360 / (256 * Double(1 << min(zoom, 30)))
        let wanted = degreesPerPixel * 8 / GeoBox.size
        var edge = 1
        while Double(edge) < wanted { edge *= 2 }
        return edge
    }
}

/// A square of `edge × edge` boxes with subscriptions, summarised.
public struct BoxMapCell: Sendable, Hashable {
    /// South-west corner of the cell, degrees (west within −180…180).
    public var west: Double
    public var south: Double
    /// Edge length, degrees.
    public var size: Double
    /// Mean centre of the cell's boxes, weighted by nothing: where the dot goes.
    public var latitude: Double
    public var longitude: Double
    public var boxes: Int
    public var subscribers: Int
    /// Boxes per class.
    public var classes: [BoxMapClass: Int]
    /// The most severe class among the boxes.
    public var mapClass: BoxMapClass
}

/// The map's answer for a viewport: single boxes when zoomed in far enough (and few enough),
/// else cells.
public struct BoxMap: Sendable {
    /// The most single boxes a response lists; past it, cells of 2 × 2 boxes and up are sent.
    public static let maximumBoxes = 5_000

    /// Boxes per class over the whole world.
    public var totals: [BoxMapClass: Int]
    /// Boxes with subscriptions, world-wide.
    public var totalBoxes: Int
    /// Boxes within the viewport.
    public var boxesInView: Int
    /// Boxes per cell edge (1 when `boxes` is filled).
    public var boxesPerCell: Int
    /// Single boxes (when `boxesPerCell == 1`).
    public var boxes: [BoxMapEntry]
    /// Cells (when `boxesPerCell > 1`).
    public var cells: [BoxMapCell]

    /// Aggregates `entries` for `viewport`.
    public init(entries: [BoxMapEntry], viewport: BoxMapViewport) {
        var totals: [BoxMapClass: Int] = [:]
        for entry in entries { totals[entry.mapClass, default: 0] += 1 }
        self.totals = totals
        totalBoxes = entries.count
        let visible = entries.filter { viewport.contains($0.state.box) }
        boxesInView = visible.count
        var edge = viewport.boxesPerCell
        if edge == 1 && visible.count > Self.maximumBoxes { edge = 2 }
        boxesPerCell = edge
        if edge == 1 {
            boxes = visible
            cells = []
            return
        }
        boxes = []
        cells = Self.cells(of: visible, edge: edge)
    }

    static func cells(of entries: [BoxMapEntry], edge: Int) -> [BoxMapCell] {
        struct Accumulator {
            var boxes = 0
            var subscribers = 0
            var latitudeSum = 0.0
            var longitudeSum = 0.0
            var classes: [BoxMapClass: Int] = [:]
        }
        var groups: [Int64: Accumulator] = [:]
        let columns = Int64((2 * GeoBox.halfTurn + edge - 1) / edge)
        for entry in entries {
            let box = entry.state.box
            // Offsets from the south-west-most box, so cells never straddle the antimeridian.
            let row = Int64((box.latitudeIndex + GeoBox.maxLatitudeIndex) / edge)
            let column = Int64((box.longitudeIndex + GeoBox.halfTurn - 1) / edge)
            var group = groups[row * columns + column, default: Accumulator()]
            group.boxes += 1
            group.subscribers += entry.state.subscribers
            group.latitudeSum += box.latitude
            group.longitudeSum += box.longitude
            group.classes[entry.mapClass, default: 0] += 1
            groups[row * columns + column] = group
        }
        return groups.keys.sorted().map { key in
            let group = groups[key]!
            let row = Int(key / columns)
            let column = Int(key % columns)
            let south = (Double(row * edge - GeoBox.maxLatitudeIndex) - 0.5) * GeoBox.size
            let west = (Double(column * edge - GeoBox.halfTurn + 1) - 0.5) * GeoBox.size
            let worst = group.classes.keys.max { $0.severity < $1.severity } ?? .none
            return BoxMapCell(
                west: west, south: south, size: Double(edge) * GeoBox.size,
                latitude: group.latitudeSum / Double(group.boxes), longitude: group.longitudeSum / Double(group.boxes),
                boxes: group.boxes, subscribers: group.subscribers, classes: group.classes, mapClass: worst)
        }
    }
}
