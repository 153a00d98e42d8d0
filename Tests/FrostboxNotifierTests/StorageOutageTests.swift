import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Synchronization
import Testing

/// A run whose database goes away: it fails with the reason, and its end is stored once the
/// database takes writes again — it is never left `running`.
@Suite("Notify run through a database outage")
struct StorageOutageTests {
    @Test("a run that cannot write fails with the reason, and its end is stored once the database is back")
    func failedRunIsRecordedWhenBack() async throws {
        let h = Harness()
        _ = h.store.subscribe(Fixtures.token(0xa11ce), box: Fixtures.box, name: "Home")
        let outage = OutageStore(h.store, failingEnds: 3)
        let summary = try await h.run(h.notifier(store: outage))
        #expect(summary.status == .failed)
        #expect(summary.error?.contains("read-only") == true, "\(summary.error ?? "")")
        #expect(outage.endAttempts == 4, "three refused, the fourth stored")
        #expect(h.store.runs.map(\.status) == [.failed])
        #expect(h.sleeper.slept.count == 3, "a pause before each new try")
    }

    @Test("a run's end is tried again only while the database is unavailable, and for a bounded time")
    func endRetryIsBounded() async throws {
        var h = Harness()
        h.configuration.endRetryWindow = .zero
        _ = h.store.subscribe(Fixtures.token(0xa11ce), box: Fixtures.box, name: "Home")
        let outage = OutageStore(h.store, failingEnds: 100)
        _ = try await h.run(h.notifier(store: outage))
        #expect(outage.endAttempts == 1)
        #expect(h.store.runs.map(\.status) == [.running], "left for the next run's start to close")
    }
}

/// The in-memory store, read-only for the run's work and refusing `failingEnds` writes of its
/// end before it takes one.
final class OutageStore: NotifierStore {
    let base: InMemoryNotifierStore
    private let ends: Mutex<(failing: Int, attempts: Int)>
    static let refused = StorageUnavailableError(.readOnly, code: "25006", message: "cannot execute UPDATE in a read-only transaction")

    init(_ base: InMemoryNotifierStore, failingEnds: Int) {
        self.base = base
        self.ends = Mutex((failingEnds, 0))
    }

    var endAttempts: Int { ends.withLock { $0.attempts } }

    func finishRun(_ summary: NotifyRunSummary) async throws {
        let refuse = ends.withLock { ends in
            ends.attempts += 1
            ends.failing -= 1
            return ends.failing >= 0
        }
        if refuse { throw Self.refused }
        try await base.finishRun(summary)
    }

    func lastOutboxID() async throws -> Int64 { throw Self.refused }
    func startRun(at now: Int64) async throws -> Int64 { try await base.startRun(at: now) }
    func boxesToNotify() async throws -> [GeoBox] { try await base.boxesToNotify() }
    func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] { try await base.places(in: boxes) }
    func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] { try await base.alertedEvents(in: boxes, now: now) }
    func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws { throw Self.refused }
    func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] { throw Self.refused }
    func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        try await base.pendingOutbox(after: after, through: through, limit: limit, dueBy: dueBy)
    }
    func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws { throw Self.refused }
    func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool { throw Self.refused }
    func recentRuns(limit: Int) async throws -> [NotifyRunSummary] { try await base.recentRuns(limit: limit) }
    func purge(before: Int64) async throws -> Int { throw Self.refused }
}
