import Foundation
import FrostboxCore

/// The body of `GET /admin/status/summary`: runs, quota, outbox, push gateways and places at a glance.
/// Keys are encoded in snake_case.
public struct StatusSummary: Sendable, Encodable, Equatable {
    /// When it was put together, RFC 3339 UTC.
    public var generatedAt: String
    public var counts: Counts
    /// The latest notify runs, newest first.
    public var runs: [Run]
    public var quota: Quota
    public var outbox: Outbox
    /// The push gateways; also sent as `apns`, its first name, for one release (deprecated in
    /// the OpenAPI document).
    public var push: Push
    public var places: Places

    enum CodingKeys: String, CodingKey {
        case generatedAt, counts, runs, quota, outbox, push, apns, places
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(counts, forKey: .counts)
        try container.encode(runs, forKey: .runs)
        try container.encode(quota, forKey: .quota)
        try container.encode(outbox, forKey: .outbox)
        try container.encode(push, forKey: .push)
        try container.encode(push, forKey: .apns)
        try container.encode(places, forKey: .places)
    }

    public init(generatedAt: Int64, counts: Counts, runs: [Run], quota: Quota, outbox: Outbox, push: Push, places: Places) {
        self.generatedAt = Timestamp.iso8601(generatedAt)
        self.counts = counts
        self.runs = runs
        self.quota = quota
        self.outbox = outbox
        self.push = push
        self.places = places
    }

    /// Row counts of the main tables.
    public struct Counts: Sendable, Encodable, Equatable {
        public var devices: Int
        /// Devices by platform (`ios`, `android`).
        public var devicesByPlatform: [String: Int]
        public var subscriptions: Int
        public var boxes: Int

        public init(devices: Int, devicesByPlatform: [String: Int] = [:], subscriptions: Int, boxes: Int) {
            self.devices = devices
            self.devicesByPlatform = devicesByPlatform
            self.subscriptions = subscriptions
            self.boxes = boxes
        }

        enum CodingKeys: String, CodingKey {
            case devices, subscriptions, boxes
            case devicesByPlatform = "devices_by_platform"
        }
    }

    /// One notify run.
    public struct Run: Sendable, Encodable, Equatable {
        public var id: Int64
        public var status: String
        public var startedAt: String
        public var finishedAt: String?
        public var durationMs: Int
        public var boxes: Int
        public var boxesFailed: Int
        public var boxesLeftOut: Int
        /// Boxes not asked for because no device in them is verified yet.
        public var boxesUnverified: Int
        public var planned: Int
        public var delivered: Int
        public var failed: Int
        /// Failed sends by class (`temporary`, `permanent`, `invalid-token`, `auth`, `expired`).
        public var failedByClass: [String: Int]
        public var error: String?

        /// The run as the status page shows it.
        public init(_ run: NotifyRunSummary) {
            id = run.id
            status = run.status.rawValue
            startedAt = Timestamp.iso8601(run.startedAt)
            finishedAt = run.finishedAt.map(Timestamp.iso8601)
            durationMs = run.durationMilliseconds
            boxes = run.boxes
            boxesFailed = run.boxesFailed
            boxesLeftOut = run.boxesLeftOut
            boxesUnverified = run.boxesUnverified
            planned = run.alertsPlanned
            delivered = run.alertsDelivered
            failed = run.alertsFailed
            failedByClass = Dictionary(uniqueKeysWithValues: DeliveryFailureClass.allCases.map { ($0.rawValue, run.failed[$0] ?? 0) })
            error = run.error
        }
    }

    /// Forecast quota used in each sliding window against its budget.
    public struct Quota: Sendable, Encodable, Equatable {
        public struct Window: Sendable, Encodable, Equatable {
            /// `minute`, `hour`, `day`.
            public var window: String
            public var seconds: Int64
            public var used: Double
            public var budget: Double
        }

        /// A pause the source imposed.
        public struct Hold: Sendable, Encodable, Equatable {
            public var until: String
            public var reason: String
        }

        public var windows: [Window]
        public var hold: Hold?
        /// Box fetches saved since 00:00 UTC: boxes the listed runs served from the cache
        /// because no model they depend on had a newer run (each a location not asked for).
        public var savedToday: Int

        public init(usage: QuotaUsage, hold: QuotaHold?, runs: [NotifyRunSummary] = [], now: Int64 = 0) {
            let midnight = now - ((now % 86_400) + 86_400) % 86_400
            savedToday = runs.filter { $0.startedAt >= midnight }.reduce(0) { $0 + $1.forecastsFreshByRun }
            let used = [usage.lastMinute, usage.lastHour, usage.lastDay]
            windows = zip(["minute", "hour", "day"], zip(usage.budgets.windows, used)).map { name, pair in
                Window(window: name, seconds: pair.0.seconds, used: pair.1, budget: pair.0.budget)
            }
            self.hold = hold.map { Hold(until: Timestamp.iso8601($0.until), reason: $0.reason) }
        }
    }

    /// Alerts waiting in the outbox, and the failure classes of the listed runs' sends.
    public struct Outbox: Sendable, Encodable, Equatable {
        public var pending: Int
        /// Pending entries by the class of their last failed send (`temporary`, `auth`), or
        /// `quiet-hours` (held until the device's quiet hours end or a delivery window opens), or `not-sent-yet`.
        public var pendingByClass: [String: Int]
        /// Failed sends by class over the runs listed in the summary.
        public var recentFailuresByClass: [String: Int]

        public init(pending: Int, pendingByClass: [String: Int] = [:], runs: [NotifyRunSummary]) {
            self.pending = pending
            self.pendingByClass = pendingByClass
            var classes = Dictionary(uniqueKeysWithValues: DeliveryFailureClass.allCases.map { ($0.rawValue, 0) })
            for run in runs {
                for (failure, count) in run.failed { classes[failure.rawValue, default: 0] += count }
            }
            recentFailuresByClass = classes
        }
    }

    /// The push gateways (APNs, FCM) since this process started.
    public struct Push: Sendable, Encodable, Equatable {
        /// Open HTTP/2 connections to every gateway.
        public var connections: Int
        /// The same by platform (`ios`, `android`).
        public var connectionsByPlatform: [String: Int]
        public var sent: Int
        public var confirmed: Int
        public var failed: Int
        public var inFlight: Int
        public var averageConfirmMs: Double
        /// Outcomes by class (`delivered`, `temporary`, `permanent`, `invalid-token`, `auth`).
        public var outcomes: [String: Int]
        /// The same by platform (`ios`, `android`).
        public var outcomesByPlatform: [String: [String: Int]]
        /// Each paced app (FCM's quota).
        public var pacing: [PushPacing]

        public init(
            connectionsByPlatform: [String: Int], sent: Int, confirmed: Int, failed: Int, inFlight: Int, averageConfirmMs: Double,
            outcomes: [String: Int], outcomesByPlatform: [String: [String: Int]] = [:], pacing: [PushPacing] = []
        ) {
            self.outcomesByPlatform = outcomesByPlatform
            self.connections = connectionsByPlatform.values.reduce(0, +)
            self.connectionsByPlatform = connectionsByPlatform
            self.pacing = pacing
            self.sent = sent
            self.confirmed = confirmed
            self.failed = failed
            self.inFlight = inFlight
            self.averageConfirmMs = averageConfirmMs
            self.outcomes = outcomes
        }
    }

    /// The place search index.
    public struct Places: Sendable, Encodable, Equatable {
        public var stored: Int
        /// Newest GeoNames modification date among the stored places (`YYYY-MM-DD`): how
        /// recent the last import's data is.
        public var newestModified: String?
        /// The places generation in use (its file name); nil for a plain places file.
        public var generation: String?
        /// When the server switched to it (RFC 3339 UTC); nil for the one it started with.
        public var switchedAt: String?

        public init(stored: Int, newestModified: String?, generation: String? = nil, switchedAt: Int64? = nil) {
            self.stored = stored
            self.newestModified = newestModified
            self.generation = generation
            self.switchedAt = switchedAt.map(Timestamp.iso8601)
        }
    }
}

/// The body of `GET /admin/status/boxes`: single boxes when zoomed in, cells otherwise.
public struct StatusBoxMap: Sendable, Encodable {
    /// When it was put together, RFC 3339 UTC.
    public var generatedAt: String
    /// `boxes` or `cells`.
    public var mode: String
    public var zoom: Int
    /// Edge of a cell in degrees (0.05 for single boxes).
    public var cellDegrees: Double
    public var totalBoxes: Int
    public var boxesInView: Int
    /// Boxes per class over the whole world.
    public var classes: [String: Int]
    public var boxes: [Box]
    public var cells: [Cell]
    /// Each level's threshold, °C, by level: what a box's chance is the chance of.
    public var thresholdsC: [String: Double]

    /// The map's answer at `now` for `viewport`, with the place names and chances of frost of
    /// the listed boxes.
    public init(
        map: BoxMap, viewport: BoxMapViewport, names: [GeoBox: [String]], chances: [GeoBox: BoxChance] = [:],
        thresholds: FrostThresholds = FrostThresholds(), now: Int64
    ) {
        generatedAt = Timestamp.iso8601(now)
        mode = map.boxesPerCell == 1 ? "boxes" : "cells"
        zoom = viewport.zoom
        cellDegrees = Double(map.boxesPerCell) * GeoBox.size
        totalBoxes = map.totalBoxes
        boxesInView = map.boxesInView
        classes = Self.classCounts(map.totals)
        boxes = map.boxes.map { Box($0, names: names[$0.state.box] ?? [], chance: chances[$0.state.box], now: now) }
        cells = map.cells.map(Cell.init)
        thresholdsC = Self.thresholds(thresholds)
    }

    static func thresholds(_ thresholds: FrostThresholds) -> [String: Double] {
        Dictionary(
            uniqueKeysWithValues: FrostLevel.allCases.compactMap { level in thresholds.threshold(of: level).map { (level.description, $0) } })
    }

    static func classCounts(_ counts: [BoxMapClass: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: BoxMapClass.allCases.map { ($0.rawValue, counts[$0] ?? 0) })
    }

    /// Rounded to `1 / scale` (coordinates: to what a 0.05° grid needs), so the JSON stays small.
    static func rounded(_ value: Double, scale: Double = 10_000) -> Double { (value * scale).rounded() / scale }

    /// One night's level and minimum, and its chance of frost when an ensemble covers it.
    public struct Night: Sendable, Encodable {
        public var night: String
        public var level: String
        public var minimumC: Double?
        public var chance: StatusChance?

        init(_ night: BoxNight, chance: NightProbability? = nil, distribution: Bool = false) {
            self.night = night.night.description
            level = night.level.description
            minimumC = night.minimumC
            self.chance = chance.map { StatusChance($0, distribution: distribution) }
        }
    }

    /// A single 0.05° box.
    public struct Box: Sendable, Encodable {
        /// `GeoBox.key`.
        public var key: Int64
        /// Text form, e.g. `60.20#25.05`.
        public var box: String
        /// Centre.
        public var lat: Double
        public var lon: Double
        public var subscribers: Int
        public var names: [String]
        public var `class`: String
        public var tonight: Night?
        public var tomorrow: Night?
        /// Seconds since the cached forecast was fetched; nil: none cached.
        public var forecastAgeS: Int64?
        public var fetchFailure: String?
        public var failingSince: String?
        /// The ensemble behind the nights' chances; nil when none is cached.
        public var chance: StatusChanceSource?

        init(_ entry: BoxMapEntry, names: [String], chance: BoxChance?, now: Int64) {
            let box = entry.state.box
            key = box.key
            self.box = box.description
            lat = box.latitude
            lon = box.longitude
            subscribers = entry.state.subscribers
            self.names = names
            `class` = entry.mapClass.rawValue
            tonight = entry.tonight.map { Night($0, chance: chance?.night($0.night)) }
            tomorrow = entry.tomorrow.map { Night($0, chance: chance?.night($0.night)) }
            self.chance = chance.map { StatusChanceSource($0, now: now) }
            forecastAgeS = entry.state.forecastFetchedAt.map { max(0, now - $0) }
            fetchFailure = entry.state.failure
            failingSince = entry.state.failingSince.map(Timestamp.iso8601)
        }
    }

    /// A square of boxes summarised.
    public struct Cell: Sendable, Encodable {
        /// South-west corner and edge, degrees.
        public var west: Double
        public var south: Double
        public var size: Double
        /// Mean centre of its boxes.
        public var lat: Double
        public var lon: Double
        public var boxes: Int
        public var subscribers: Int
        /// The most severe class among its boxes.
        public var `class`: String
        public var classes: [String: Int]

        init(_ cell: BoxMapCell) {
            west = StatusBoxMap.rounded(cell.west)
            south = StatusBoxMap.rounded(cell.south)
            size = StatusBoxMap.rounded(cell.size)
            lat = StatusBoxMap.rounded(cell.latitude)
            lon = StatusBoxMap.rounded(cell.longitude)
            boxes = cell.boxes
            subscribers = cell.subscribers
            `class` = cell.mapClass.rawValue
            classes = cell.classes.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: cell.classes.map { ($0.key.rawValue, $0.value) })
        }
    }
}
