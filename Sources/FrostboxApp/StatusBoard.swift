import FrostboxCore
import FrostboxHTTP
import FrostboxSQLite
import Logging

/// The read model behind the status page. Keeps the nights of each box's cached forecast in
/// memory, keyed by the forecast's fetch time, so a refresh decodes only forecasts fetched
/// since the last one: with 100,000 boxes a refresh is one grouped query, not 100,000 blobs.
public actor StatusBoard {
    let source: any BoxMapSource
    let forecasts: any ForecastCache
    /// The rule the map's verdicts are computed with (the configured preset, no per-subscription overrides).
    let rule: FrostRule
    /// Place names listed per box.
    let namesPerBox: Int
    private var nights: [GeoBox: (fetchedAt: Int64, nights: [BoxNight])] = [:]
    /// Forecasts read per cache lookup.
    static let loadChunk = 2_000

    /// The demo's scenario, whose forecasts never pass through the cache: the map computes
    /// each box's nights from it, as the notifier plans from it. Nil outside the demo.
    let scenario: DemoForecastProvider?

    public init(source: any BoxMapSource, forecasts: any ForecastCache, rule: FrostRule, namesPerBox: Int = 5, scenario: DemoForecastProvider? = nil) {
        self.source = source
        self.forecasts = forecasts
        self.rule = rule
        self.namesPerBox = namesPerBox
        self.scenario = scenario
    }

    /// Every box with subscriptions as the map shows it at `now`.
    public func entries(now: Int64) async throws -> [BoxMapEntry] {
        let boxes = try await source.subscribedBoxes()
        if let scenario {
            return boxes.map { state in
                BoxMapEntry(state: state, nights: BoxNight.nights(of: scenario.forecast(for: state.box, now: now), rule: rule), now: now)
            }
        }
        let stale = boxes.compactMap { state -> GeoBox? in
            guard let fetchedAt = state.forecastFetchedAt else { return nil }
            return nights[state.box]?.fetchedAt == fetchedAt ? nil : state.box
        }
        for start in stride(from: 0, to: stale.count, by: Self.loadChunk) {
            let chunk = Array(stale[start..<min(start + Self.loadChunk, stale.count)])
            for (box, forecast) in try await forecasts.forecasts(for: chunk, fetchedSince: Int64.min) {
                nights[box] = (forecast.fetchedAt, BoxNight.nights(of: forecast, rule: rule))
            }
        }
        if nights.count > boxes.count {
            let current = Set(boxes.map(\.box))
            nights = nights.filter { current.contains($0.key) }
        }
        return boxes.map { state in
            // A forecast purged or replaced since the list was read counts as none, not as an older one.
            let known = nights[state.box].flatMap { $0.fetchedAt == state.forecastFetchedAt ? $0.nights : nil } ?? []
            return BoxMapEntry(state: state, nights: known, now: now)
        }
    }

    /// The map for `viewport` at `now`, with place names of the single boxes it lists.
    public func map(_ viewport: BoxMapViewport, now: Int64) async throws -> StatusBoxMap {
        let map = BoxMap(entries: try await entries(now: now), viewport: viewport)
        let names = map.boxes.isEmpty ? [:] : try await source.placeNames(in: map.boxes.map(\.state.box), limit: namesPerBox)
        return StatusBoxMap(map: map, viewport: viewport, names: names, now: now)
    }
}

extension FrostboxApplication {
    /// `/status` and its JSON, when an admin token is configured.
    static func statusRoutes(_ components: Components) -> [FrostboxAPI.RouteGroup] {
        guard let token = components.operations.adminToken else { return [] }
        let board = StatusBoard(
            source: components.database.boxMap, forecasts: components.forecasts.cache,
            rule: components.alertRule, scenario: components.demoScenario)
        let clock = components.clock
        let operations = StatusRoutes.Operations(
            summary: { try await statusSummary(components, now: clock()) },
            boxes: { viewport in try await board.map(viewport, now: clock()) })
        return [StatusRoutes(token: token, operations: operations).add(to:)]
    }

    /// Runs, quota, outbox, APNs and places for the status page.
    static func statusSummary(_ components: Components, now: Int64) async throws -> StatusSummary {
        let counts = try await components.database.statistics()
        let runs = try await components.notifier.store.recentRuns(limit: 30)
        let ledger = components.forecasts.ledger
        let report = components.operations.report.snapshot()
        return StatusSummary(
            generatedAt: now,
            counts: .init(
                devices: counts.devices, devicesByPlatform: counts.devicesByPlatform, subscriptions: counts.subscriptions, boxes: counts.boxes),
            runs: runs.map(StatusSummary.Run.init),
            quota: .init(usage: try await ledger.usage(at: now), hold: try await ledger.activeHold(at: now), runs: runs, now: now),
            outbox: .init(pending: counts.outboxPending, pendingByClass: counts.outboxPendingByClass, runs: runs),
            apns: .init(
                connections: components.pushComponents.openConnections, sent: report.sent, confirmed: report.confirmed,
                failed: report.failed, inFlight: report.inFlight,
                averageConfirmMs: (report.averageConfirmMilliseconds * 10).rounded() / 10, outcomes: report.outcomes,
                outcomesByPlatform: report.outcomesByPlatform),
            places: try await places(components.placesInUse))
    }

    /// The places part of the summary, read from one places file (a switch in between would
    /// mix two generations).
    static func places(_ inUse: PlacesInUse) async throws -> StatusSummary.Places {
        let status = inUse.status
        let database = inUse.database
        return .init(
            stored: try await database.placeCount(), newestModified: try await database.newestModified(), generation: status.generation,
            switchedAt: status.switchedAt)
    }
}
