import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// Issue #50, item 2, the switchover finding (docs/benchmarks.md, footnote ⁴): a shared run's
/// part resumed after an outage that struck while a chunk was being delivered ended
/// `completed` with most of that chunk's alerts still pending, held by its own worker and sent
/// by nobody. Here one instance alone on the run: the database stops taking writes (made
/// read-only, refused with 25006 as by a standby) when the second chunk is planned, while the
/// pushes of the first are still unanswered; it comes back 2 s later.
@Suite("a shared run's delivery cut short by a lost primary on PostgreSQL", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct NotifyRunCutDeliveryTests {
    static let homeDevices = 200
    static let cabinDevices = 20
    static let bound = 40

    @Test("the part resumes with the chunk whose delivery the outage cut: every alert sent once, none pending, the run completed")
    func resumedPartSendsWhatTheCutLeft() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let name = try await cluster.createDatabaseOffThePool(prefix: "cutdelivery")
        let database = try await FrostboxPostgres.PostgresDatabase.openedInTestScope(
            settings: PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable),
            maximumConnections: 4, connectionWait: .seconds(2))
        let subscriptions = PostgresSubscriptionStore(database: database)
        let places: [(coordinate: Coordinate, devices: Int, firstToken: Int)] = [
            (try Coordinate(latitude: 60.17, longitude: 24.94), Self.homeDevices, 0x8000),
            (try Coordinate(latitude: 61.5, longitude: 23.75), Self.cabinDevices, 0x9000),
        ]
        for place in places {
            let subscription = NewSubscription(coordinate: place.coordinate, name: try PlaceName("Home"))
            for n in 0..<place.devices { _ = try await subscriptions.subscribe(Fixtures.token(place.firstToken + n), to: subscription, at: 1) }
        }
        let store = PostgresNotifierStore(database: database, worker: "w", leaseSeconds: 30)
        // The first chunk's first pushes (two windows of the bound) are answered only once its
        // delivery is stopped: the outage comes while they are in flight.
        let push = HoldingPushSender(held: Self.bound)
        let forecasts = PrimaryLosingForecasts(losingAt: Fixtures.otherBox) {
            await push.waitUntilHolding()
            await NotifyRunFailoverTests.loseWrites(cluster, database)
        }
        forecasts.scripted.set(Fixtures.frost(low: -1))
        forecasts.scripted.set(Fixtures.frost(low: -1, box: Fixtures.otherBox))
        var configuration = NotifierSettings()
        configuration.concurrency = Self.bound
        configuration.boxesPerChunk = 1
        configuration.endRetryWindow = .seconds(30)
        let notifier = Notifier(
            store: store, forecasts: forecasts, push: push, configuration: configuration, workQueue: store, logger: PostgresFaultTests.quiet,
            clock: { Fixtures.afternoon })

        async let ran = notifier.run()
        try await PostgresFaultTests.within(.seconds(120), "the database lost") { await forecasts.lost.wait() }
        try await Task.sleep(for: .seconds(2))
        try await TestPostgresCluster.offThePool { try cluster.setReadOnly(false) }
        guard case .completed(let summary) = try await ran else {
            Issue.record("the run did not start")
            return
        }

        let devices = Self.homeDevices + Self.cabinDevices
        let rows = try await cluster.query("SELECT status, count(*) FROM outbox GROUP BY status", database: name)
        let statuses = Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Int($0[1]) ?? -1) })
        #expect(statuses == ["delivered": devices], "no alert left pending: \(statuses)")
        let byToken = push.sent.reduce(into: [DeviceToken: Int]()) { $0[$1.token, default: 0] += 1 }
        #expect(
            byToken.count == devices && byToken.values.allSatisfy { $0 == 1 },
            "each alert sent once: \(byToken.count) devices, most \(byToken.values.max() ?? 0)")
        #expect(summary.status == .completed, "\(summary.status) \(summary.error ?? "")")
        let run = try await cluster.query("SELECT status, alerts_planned, alerts_delivered FROM notify_run", database: name)
        #expect(run == [["completed", "\(devices)", "\(devices)"]], "the run's row: \(run)")
    }
}

/// Scripted forecasts that lose the database (`lose`) the first time `box` is asked for, then
/// answer: the chunk after the one being delivered is planned against a lost primary.
final class PrimaryLosingForecasts: ForecastProvider {
    let scripted = ScriptedForecastProvider()
    let lost = Latch()
    private let box: GeoBox
    private let lose: @Sendable () async -> Void
    private let asked = Mutex(false)

    init(losingAt box: GeoBox, lose: @escaping @Sendable () async -> Void) {
        self.box = box
        self.lose = lose
    }

    func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        let first =
            boxes.contains(box)
            && asked.withLock { asked in
                defer { asked = true }
                return !asked
            }
        if first {
            await lose()
            lost.open()
        }
        return await scripted.forecasts(for: boxes, now: now)
    }
}
