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
/// would (then taking them); everything else passes through (`ForwardingNotifierStore`).
final class RecordOutageStore: ForwardingNotifierStore {
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
}
