import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Synchronization
import Testing

/// A run whose outcome writes are refused for a while — a PostgreSQL failover mid-run
/// (issue #50): it stops handing out pushes once `concurrency` answered pushes wait
/// unrecorded, writes them when the database is back and goes on, or ends `failed`; either
/// way a lost database costs at most the in-flight bound in resends, never the run's rest.
@Suite("Notify run: outcomes through a database outage")
struct OutcomeOutageTests {
    static let devices = 600

    func harness(concurrency: Int) -> Harness {
        var h = Harness()
        h.configuration.concurrency = concurrency
        for n in 0..<Self.devices { _ = h.store.subscribe(Fixtures.token(0x5000 + n), box: Fixtures.box, name: "Home") }
        h.forecasts.set(Fixtures.frost(low: -1))
        return h
    }

    @Test("outcomes that cannot be stored stop the sending at the bound, and the run ends failed, not completed")
    func neverRecovers() async throws {
        let h = harness(concurrency: 40)
        let store = RecordOutageStore(h.store, failingRecords: .max)
        let summary = try await h.run(h.notifier(store: store))
        let alerts = h.push.sent.filter { $0.purpose == .alert }
        #expect(summary.status == .failed, "\(summary.status)")
        #expect(summary.error?.contains("down") == true, "\(summary.error ?? "")")
        #expect(!alerts.isEmpty && alerts.count <= 2 * 40, "sent \(alerts.count) of \(Self.devices) with nothing recorded")
        // The next run (database back) sends the rest once: resends are at most what was sent unrecorded.
        store.recover()
        _ = try await h.run(h.notifier(store: store))
        let byToken = Dictionary(grouping: h.push.sent.filter { $0.purpose == .alert }, by: \.token)
        #expect(byToken.count == Self.devices)
        #expect(byToken.values.filter { $0.count > 1 }.count == alerts.count)
    }

    @Test("outcomes refused for a moment are written once the database answers, and every alert goes out exactly once")
    func recovers() async throws {
        let h = harness(concurrency: 40)
        let store = RecordOutageStore(h.store, failingRecords: 3)
        let summary = try await h.run(h.notifier(store: store))
        #expect(summary.status == .completed, "\(summary.status) \(summary.error ?? "")")
        #expect(summary.alertsDelivered == Self.devices)
        let byToken = Dictionary(grouping: h.push.sent.filter { $0.purpose == .alert }, by: \.token)
        #expect(byToken.count == Self.devices && byToken.values.allSatisfy { $0.count == 1 })
        #expect(store.refusedRecords == 3)
        #expect(h.sleeper.slept.count >= 3, "a pause before each new try")
        // Nothing left pending for a later run to send again.
        #expect(try await h.store.pendingOutbox(after: 0, through: nil, limit: 10_000, dueBy: .max).isEmpty)
    }
}

/// The in-memory store refusing `failingRecords` outcome writes as an unavailable database
/// would (then taking them); everything else passes through.
final class RecordOutageStore: NotifierStore {
    let base: InMemoryNotifierStore
    private let failing: Mutex<(left: Int, refused: Int)>
    static let down = StorageUnavailableError(.down, code: "57P01", message: "terminating connection due to administrator command")

    init(_ base: InMemoryNotifierStore, failingRecords: Int) {
        self.base = base
        self.failing = Mutex((failingRecords, 0))
    }

    var refusedRecords: Int { failing.withLock { $0.refused } }
    func recover() { failing.withLock { $0.left = 0 } }

    func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws {
        let refuse = failing.withLock { failing in
            guard failing.left > 0 else { return false }
            failing.left -= 1
            failing.refused += 1
            return true
        }
        if refuse { throw Self.down }
        try await base.record(outcomes)
    }

    func finishRun(_ summary: NotifyRunSummary) async throws { try await base.finishRun(summary) }
    func lastOutboxID() async throws -> Int64 { try await base.lastOutboxID() }
    func startRun(at now: Int64) async throws -> Int64 { try await base.startRun(at: now) }
    func boxesToNotify() async throws -> [GeoBox] { try await base.boxesToNotify() }
    func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] { try await base.places(in: boxes) }
    func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] { try await base.alertedEvents(in: boxes, now: now) }
    func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws {
        try await base.recordFetches(succeeded: succeeded, failed: failed, at: now)
    }
    func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] { try await base.enqueue(entries, runID: runID) }
    func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        try await base.pendingOutbox(after: after, through: through, limit: limit, dueBy: dueBy)
    }
    func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool {
        try await base.pruneDevice(token, registeredNoLaterThan: cutoff)
    }
    func recentRuns(limit: Int) async throws -> [NotifyRunSummary] { try await base.recentRuns(limit: limit) }
    func purge(before: Int64) async throws -> Int { try await base.purge(before: before) }
}
