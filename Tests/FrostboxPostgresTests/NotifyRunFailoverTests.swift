import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// Issue #50, item 2, on a real server: a shared notify run whose PostgreSQL stops taking
/// writes in the middle of delivery, as a primary lost to a failover does (here: made
/// read-only, so every write is refused with 25006, as by a standby). At most
/// `notifier.concurrency` pushes are ever sent and unrecorded: the run waits for the database
/// and completes with every alert delivered once, or ends `failed`, and the next run resends at
/// most that many.
@Suite("notify run through a lost primary on PostgreSQL", .serialized, .requiresPostgres, .backgroundWorkScoped)
struct NotifyRunFailoverTests {
    static let devices = 600
    static let bound = 40
    /// Pushes handed out before the database stops taking writes.
    static let failAfter = 120

    struct Setup {
        let cluster: TestPostgresCluster
        let database: FrostboxPostgres.PostgresDatabase
        let store: PostgresNotifierStore
        let push: PrimaryLosingPush
        let forecasts = ScriptedForecastProvider()
    }

    static func setUp() async throws -> Setup {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        let name = try await cluster.createDatabaseOffThePool(prefix: "failover")
        let database = try await FrostboxPostgres.PostgresDatabase.openedInTestScope(
            settings: PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable),
            maximumConnections: 4, connectionWait: .seconds(2))
        let subscriptions = PostgresSubscriptionStore(database: database)
        let home = try Coordinate(latitude: 60.17, longitude: 24.94)
        for n in 0..<devices {
            _ = try await subscriptions.subscribe(Fixtures.token(0x7000 + n), to: NewSubscription(coordinate: home, name: try PlaceName("Home")), at: 1)
        }
        let setup = Setup(
            cluster: cluster, database: database, store: PostgresNotifierStore(database: database, worker: "w", leaseSeconds: 30),
            push: PrimaryLosingPush(failAfter: failAfter) {
                await Self.loseWrites(cluster, database)
            })
        setup.forecasts.set(Fixtures.frost(low: -1))
        return setup
    }

    /// `at`: the run's clock (a later run after a failed one comes when the failed one's leases
    /// have expired, as the next scheduled run would).
    /// Makes the cluster refuse writes (read-only) and returns once a write through the pool
    /// is refused as read-only: the sessions take the reloaded setting once the postmaster has
    /// signalled them, a moment, but seconds on a loaded machine (a fixed 300 ms let a whole
    /// run's writes through). Another failure (a connection wait under load) is not the loss:
    /// it is tried again, and the setting asked for again every 2 s in case its `psql` failed;
    /// at most 60 s.
    static func loseWrites(_ cluster: TestPostgresCluster, _ database: FrostboxPostgres.PostgresDatabase) async {
        let deadline = ContinuousClock.now + .seconds(60)
        var asked = ContinuousClock.now - .seconds(10)
        while ContinuousClock.now < deadline {
            if ContinuousClock.now - asked >= .seconds(2) {
                try? await TestPostgresCluster.offThePool { try cluster.setReadOnly(true) }
                asked = ContinuousClock.now
            }
            do {
                try await database.query("UPDATE outbox SET attempts = attempts WHERE false", writes: true)
            } catch let error as StorageUnavailableError where error.reason == .readOnly {
                return
            } catch {}
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    static func notifier(_ setup: Setup, endRetryWindow: Duration, at now: Int64 = Fixtures.afternoon) -> Notifier {
        var configuration = NotifierSettings()
        configuration.concurrency = bound
        configuration.endRetryWindow = endRetryWindow
        return Notifier(
            store: setup.store, forecasts: setup.forecasts, push: setup.push, configuration: configuration, workQueue: setup.store,
            logger: PostgresFaultTests.quiet, clock: { now })
    }

    /// The run's summary (nil: it did not start).
    static func run(_ notifier: Notifier) async throws -> NotifyRunSummary? {
        guard case .completed(let summary) = try await notifier.run() else { return nil }
        return summary
    }

    static func statuses(_ setup: Setup) async throws -> [String: Int] {
        let rows = try await setup.cluster.query("SELECT status, count(*) FROM outbox GROUP BY status", database: setup.database.settings.database)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Int($0[1]) ?? -1) })
    }

    static func alertsByToken(_ push: RecordingPushSender) -> [DeviceToken: Int] {
        push.sent.filter { $0.purpose == .alert }.reduce(into: [:]) { $0[$1.token, default: 0] += 1 }
    }

    @Test("writes refused for 2 s mid-delivery: sending stops at the bound, the run waits, resumes and completes; each alert once, nothing pending")
    func waitsOutTheFailover() async throws {
        let setup = try await Self.setUp()
        defer { setup.cluster.remove() }
        let push = setup.push
        async let summary = Self.run(Self.notifier(setup, endRetryWindow: .seconds(30)))
        try await PostgresFaultTests.within(.seconds(120), "the database lost") { await push.lost.wait() }
        try await Task.sleep(for: .seconds(2))
        let sentWhileLost = push.recording.sent.count
        let recordedWhileLost = try await Self.statuses(setup)["delivered", default: 0]
        try await TestPostgresCluster.offThePool { try setup.cluster.setReadOnly(false) }
        let done = try #require(try await summary)

        #expect(done.status == .completed, "\(done.status) \(done.error ?? "")")
        #expect(sentWhileLost < Self.devices, "sending stopped while writes were refused")
        #expect(sentWhileLost - recordedWhileLost <= Self.bound, "sent \(sentWhileLost), recorded \(recordedWhileLost) while writes were refused")
        let byToken = Self.alertsByToken(push.recording)
        #expect(byToken.count == Self.devices && byToken.values.allSatisfy { $0 == 1 }, "each alert sent once")
        #expect(try await Self.statuses(setup) == ["delivered": Self.devices], "every outcome stored")
    }

    @Test("writes refused past the run's wait: at most the bound sent unrecorded, the run failed (not completed); the next run resends at most the bound")
    func failsAndTheNextRunResendsAtMostTheBound() async throws {
        let setup = try await Self.setUp()
        defer { setup.cluster.remove() }
        let first = try #require(try await Self.run(Self.notifier(setup, endRetryWindow: .seconds(3))))
        #expect(first.status == .failed, "\(first.status)")
        // Most often the outcomes it could not record; a planning step refused past the wait would do too.
        #expect(first.error?.contains("could not record the outcomes") == true || first.error?.contains("read-only") == true, "\(first.error ?? "")")
        let sent = Self.alertsByToken(setup.push.recording).values.reduce(0, +)
        try await TestPostgresCluster.offThePool { try setup.cluster.setReadOnly(false) }
        let delivered = try await Self.statuses(setup)["delivered", default: 0]
        #expect(sent - delivered <= Self.bound, "sent \(sent), recorded \(delivered)")
        #expect(first.alertsDelivered > 0, "a failed run still says what it delivered")

        // The new primary: the next run sends what is pending, each device's alert once more at most.
        let second = try #require(try await Self.run(Self.notifier(setup, endRetryWindow: .seconds(30), at: Fixtures.afternoon + 600)))
        #expect(second.status == .completed, "\(second.status) \(second.error ?? "")")
        let byToken = Self.alertsByToken(setup.push.recording)
        #expect(byToken.count == Self.devices, "every device alerted")
        let resent = byToken.values.count { $0 > 1 }
        #expect(resent <= Self.bound && byToken.values.allSatisfy { $0 <= 2 }, "resent \(resent)")
        #expect(try await Self.statuses(setup) == ["delivered": Self.devices])
    }
}

/// A push double that loses the database (`lose`) once `failAfter` pushes have been handed
/// out: the batch that crosses the mark is answered only after it; all are recorded by
/// `recording`, which answers `.delivered`.
final class PrimaryLosingPush: PushSender {
    let recording = RecordingPushSender()
    let lost = Latch()
    private let failAfter: Int
    private let lose: @Sendable () async -> Void
    private let handed = Mutex(0)

    init(failAfter: Int, lose: @escaping @Sendable () async -> Void) {
        self.failAfter = failAfter
        self.lose = lose
    }

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        let before = handed.withLock { count in
            defer { count += batch.count }
            return count
        }
        let crosses = before < failAfter && before + batch.count >= failAfter
        return PushOutcomes(grouped: { [self] yieldAll in
            if crosses {
                await lose()
                lost.open()
            }
            for await outcome in recording.send(batch) { yieldAll([outcome]) }
        })
    }
}

/// Opened once; `wait()` returns once it is.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}
