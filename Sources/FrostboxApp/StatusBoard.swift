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
    /// The cached ensembles the chances of frost come from; nil when `forecast.probability` is off.
    let ensembles: (any EnsembleCache)?

    public init(
        source: any BoxMapSource, forecasts: any ForecastCache, rule: FrostRule, namesPerBox: Int = 5, scenario: DemoForecastProvider? = nil,
        ensembles: (any EnsembleCache)? = nil
    ) {
        self.source = source
        self.forecasts = forecasts
        self.rule = rule
        self.namesPerBox = namesPerBox
        self.scenario = scenario
        self.ensembles = ensembles
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

    /// The map for `viewport` at `now`, with place names and chances of frost of the single
    /// boxes it lists (at most `BoxMap.maximumBoxes`; cells carry verdicts only).
    public func map(_ viewport: BoxMapViewport, now: Int64) async throws -> StatusBoxMap {
        let map = BoxMap(entries: try await entries(now: now), viewport: viewport)
        let listed = map.boxes.map(\.state.box)
        let names = listed.isEmpty ? [:] : try await source.placeNames(in: listed, limit: namesPerBox)
        return StatusBoxMap(
            map: map, viewport: viewport, names: names, chances: try await chances(of: listed, now: now), thresholds: rule.thresholds, now: now)
    }

    /// One box with every night still ahead and the distribution behind each chance; nil
    /// when no subscription is in the box.
    public func detail(of box: GeoBox, now: Int64) async throws -> StatusBoxDetail? {
        let all = try await entries(now: now)
        guard let entry = all.first(where: { $0.state.box == box }) else { return nil }
        let known: [BoxNight]
        if let scenario {
            known = BoxNight.nights(of: scenario.forecast(for: box, now: now), rule: rule)
        } else {
            known = nights[box].flatMap { $0.fetchedAt == entry.state.forecastFetchedAt ? $0.nights : nil } ?? []
        }
        let names = try await source.placeNames(in: [box], limit: namesPerBox)[box] ?? []
        return StatusBoxDetail(
            entry: entry, nights: known.filter { $0.windowEnd > now }, names: names, chance: try await chances(of: [box], now: now)[box],
            thresholds: rule.thresholds, now: now)
    }

    /// The chances of frost of `boxes` from their cached ensembles, whatever their age (the
    /// map says how old each is); none when the chance of frost is off.
    func chances(of boxes: [GeoBox], now: Int64) async throws -> [GeoBox: BoxChance] {
        guard let ensembles, !boxes.isEmpty else { return [:] }
        var chances: [GeoBox: BoxChance] = [:]
        for start in stride(from: 0, to: boxes.count, by: Self.loadChunk) {
            let chunk = Array(boxes[start..<min(start + Self.loadChunk, boxes.count)])
            for (box, ensemble) in try await ensembles.ensembles(for: chunk, fetchedSince: Int64.min) {
                chances[box] = BoxChance(ensemble: ensemble, rule: rule, now: now)
            }
        }
        return chances
    }
}

extension FrostboxApplication {
    /// `/status` and its JSON, when an admin token is configured.
    static func statusRoutes(_ components: Components) -> [FrostboxAPI.RouteGroup] {
        guard let token = components.operations.adminToken else { return [] }
        let board = StatusBoard(
            source: components.database.boxMap, forecasts: components.forecasts.cache,
            rule: components.alertRule, scenario: components.demoScenario,
            ensembles: components.forecasts.ensembles == nil ? nil : components.database.ensembleCache)
        let clock = components.clock
        let operations = StatusRoutes.Operations(
            summary: { try await statusSummary(components, now: clock()) },
            boxes: { viewport in try await board.map(viewport, now: clock()) },
            box: { box in try await board.detail(of: box, now: clock()) })
        return [StatusRoutes(token: token, operations: operations).add(to:)]
    }

    /// Runs, quota, outbox, push gateways and places for the status page.
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
            push: .init(
                connectionsByPlatform: components.pushComponents.connectionsByPlatform, sent: report.sent, confirmed: report.confirmed,
                failed: report.failed, inFlight: report.inFlight,
                averageConfirmMs: (report.averageConfirmMilliseconds * 10).rounded() / 10, outcomes: report.outcomes,
                outcomesByPlatform: report.outcomesByPlatform, pacing: components.pushComponents.pacing),
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
