import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// Issue #50, item 2: a primary lost in the middle of a run. Outcome writes work for a while,
/// then the database refuses them. A push counts against `notifier.concurrency` from the moment
/// it is handed out until its outcome is durable, so at most that many are sent and unrecorded,
/// whenever the database goes: the run waits for the database and completes with every alert
/// delivered once, or ends `failed` (never `completed`), and the next run resends at most that many.
@Suite("Notify run: outcome writes failing mid-run")
struct OutcomeRecordingFailureTests {
    static let devices = 600
    static let bound = 40

    func harness() -> Harness {
        var h = Harness()
        h.configuration.concurrency = Self.bound
        for n in 0..<Self.devices { _ = h.store.subscribe(Fixtures.token(0x6000 + n), box: Fixtures.box, name: "Home") }
        h.forecasts.set(Fixtures.frost(low: -1))
        return h
    }

    /// Alerts sent, by token.
    static func alerts(_ h: Harness) -> [DeviceToken: Int] {
        h.push.sent.filter { $0.purpose == .alert }.reduce(into: [:]) { $0[$1.token, default: 0] += 1 }
    }

    @Test("writes failing for good after 100 outcomes: ≤ bound pushes handed out after, ≤ bound unrecorded, the run failed; the next run resends ≤ bound")
    func failsForGood() async throws {
        let h = harness()
        let store = FailingAfterStore(h.store, push: h.push, recordedFirst: 100, refusals: .max)
        let summary = try await h.run(h.notifier(store: store))
        #expect(summary.status == .failed, "\(summary.status)")
        #expect(summary.error?.contains("could not record the outcomes") == true, "\(summary.error ?? "")")
        let sent = h.push.sent.filter { $0.purpose == .alert }.count
        let sentAtFailure = try #require(store.sentAtFirstRefusal)
        #expect(sent - sentAtFailure <= Self.bound, "handed out after the first refused write: \(sent - sentAtFailure)")
        #expect(sent - store.recorded <= Self.bound, "sent and unrecorded: \(sent - store.recorded) (sent \(sent), recorded \(store.recorded))")
        // A failed run still says what it delivered (all but the chunks whose answers were not in yet).
        #expect(summary.alertsDelivered > 0 && summary.alertsDelivered >= store.recorded - Self.bound, "delivered=\(summary.alertsDelivered)")

        // The database is back: the next run sends what is pending; resends are what went unrecorded.
        store.recover()
        let next = try await h.run(h.notifier(store: store))
        #expect(next.status == .completed, "\(next.error ?? "")")
        let byToken = Self.alerts(h)
        #expect(byToken.count == Self.devices, "every device alerted")
        let resent = byToken.values.count { $0 > 1 }
        #expect(byToken.values.allSatisfy { $0 <= 2 })
        #expect(resent <= Self.bound && resent == sent - store.recordedBeforeRecovery, "resent \(resent)")
    }

    @Test(
        "writes refused for a while after 100 outcomes, pushes answered after a moment: sending pauses at the bound and resumes, the run completes, each alert once, nothing pending"
    )
    func waitsAndResumes() async throws {
        let h = harness()
        let store = FailingAfterStore(h.store, push: h.push, recordedFirst: 100, refusals: 4, refusalTakes: .milliseconds(20))
        // Answers take a moment, so pushes are in flight when a write is refused: they count too.
        let summary = try await h.run(h.notifier(push: SlowPushSender(h.push), store: store))
        #expect(summary.status == .completed, "\(summary.status) \(summary.error ?? "")")
        #expect(summary.alertsDelivered == Self.devices)
        let byToken = Self.alerts(h)
        #expect(byToken.count == Self.devices && byToken.values.allSatisfy { $0 == 1 }, "each alert sent once")
        #expect(store.refused == 4)
        let sentAtFailure = try #require(store.sentAtFirstRefusal)
        #expect(try #require(store.sentAtRecovery) - sentAtFailure <= Self.bound, "handed out while writes were refused")
        #expect(store.mostUnrecorded <= Self.bound, "sent and unrecorded at a refused write: \(store.mostUnrecorded)")
        #expect(try await h.store.pendingOutbox(after: 0, through: nil, limit: 10_000, dueBy: .max).isEmpty)
    }

    @Test(
        "a dead token's prune refused by the database: the run fails, and its summary counts every alert the outbox holds as delivered, the chunks beside the error's included"
    )
    func refusedPruneCountsEverySend() async throws {
        let h = harness()
        let dead = Fixtures.token(0x6000 + 5)
        h.push.script(dead, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: nil)])
        let store = PruneRefusingStore(base: h.store)
        let summary = try await h.run(h.notifier(store: store))
        #expect(summary.status == .failed, "\(summary.status)")
        #expect(summary.error?.contains("serverClosedConnection") == true, "\(summary.error ?? "")")
        let rows = h.store.outbox
        let delivered = rows.count { $0.status == .delivered }
        // The error came in the first chunk, with the second already handed out: both are counted.
        #expect(delivered >= Self.bound - 1, "delivered rows: \(delivered)")
        #expect(summary.alertsDelivered == delivered, "summary \(summary.alertsDelivered), outbox \(delivered)")
        #expect(summary.failed[.invalidToken] == 1)
        #expect(rows.first { $0.entry.token == dead }?.failure == .invalidToken, "recorded before the prune")
        #expect(summary.tokensPruned == 0)
    }

    @Test("a shared run's part whose outcomes cannot be written ends failed, not resumed into `completed`")
    func sharedPartFails() async throws {
        let h = harness()
        let store = FailingAfterStore(h.store, push: h.push, recordedFirst: 100, refusals: .max)
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box], openRun: false)
        let (clock, sleeper) = (h.clock, h.sleeper)
        let notifier = Notifier(
            store: store, forecasts: h.forecasts, push: h.push, configuration: h.configuration, workQueue: queue,
            logger: Logger(label: "test"), clock: { clock.now }, sleep: { try await sleeper.sleep($0) })
        guard case .completed(let summary) = try await notifier.run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.status == .failed, "\(summary.status)")
        #expect(queue.state.withLock { $0.parts.map(\.status) } == [.failed])
        let sent = h.push.sent.filter { $0.purpose == .alert }.count
        #expect(sent - store.recorded <= Self.bound, "sent \(sent), recorded \(store.recorded)")
    }
}

/// The in-memory store taking the first `recordedFirst` outcomes, then refusing outcome writes
/// as a lost primary would (`refusals` times, each after `refusalTakes`, then taking them
/// again); it notes how many pushes
/// had been sent at the first refusal and at the first write taken after refusals.
final class FailingAfterStore: ForwardingNotifierStore {
    struct State {
        var recorded = 0
        var refusalsLeft: Int
        var refused = 0
        var sentAtFirstRefusal: Int?
        var sentAtRecovery: Int?
        var recordedBeforeRecovery = 0
        var mostUnrecorded = 0
    }

    let base: InMemoryNotifierStore
    let push: RecordingPushSender
    let recordedFirst: Int
    /// How long a refused write takes to fail (a connection wait, a round trip).
    let refusalTakes: Duration
    private let state: Mutex<State>
    static let down = StorageUnavailableError(.down, message: "the connection to the server failed (serverClosedConnection)")

    init(_ base: InMemoryNotifierStore, push: RecordingPushSender, recordedFirst: Int, refusals: Int, refusalTakes: Duration = .zero) {
        self.base = base
        self.push = push
        self.recordedFirst = recordedFirst
        self.refusalTakes = refusalTakes
        self.state = Mutex(State(refusalsLeft: refusals))
    }

    var recorded: Int { state.withLock { $0.recorded } }
    var refused: Int { state.withLock { $0.refused } }
    var sentAtFirstRefusal: Int? { state.withLock { $0.sentAtFirstRefusal } }
    var sentAtRecovery: Int? { state.withLock { $0.sentAtRecovery } }
    /// The most pushes sent and not recorded at any refused write.
    var mostUnrecorded: Int { state.withLock { $0.mostUnrecorded } }
    /// Outcomes taken before `recover()`.
    var recordedBeforeRecovery: Int { state.withLock { $0.recordedBeforeRecovery } }

    /// Takes every write from now on.
    func recover() {
        state.withLock { state in
            state.refusalsLeft = 0
            state.recordedBeforeRecovery = state.recorded
        }
    }

    func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws {
        let sent = push.sent.count { $0.purpose == .alert }
        let refuse = state.withLock { state -> Bool in
            guard state.recorded >= recordedFirst, state.refusalsLeft > 0 else {
                if state.refused > 0, state.sentAtRecovery == nil { state.sentAtRecovery = sent }
                state.recorded += outcomes.count
                return false
            }
            state.refusalsLeft -= 1
            state.refused += 1
            if state.sentAtFirstRefusal == nil { state.sentAtFirstRefusal = sent }
            state.mostUnrecorded = max(state.mostUnrecorded, sent - state.recorded)
            return true
        }
        if refuse {
            if refusalTakes > .zero { try await Task.sleep(for: refusalTakes) }
            throw Self.down
        }
        try await base.record(outcomes)
    }
}

/// Answers through `inner` after a moment (2 ms), so that pushes are in flight for a while.
struct SlowPushSender: PushSender {
    let inner: RecordingPushSender

    init(_ inner: RecordingPushSender) { self.inner = inner }

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        let inner = self.inner
        return PushOutcomes(grouped: { yieldAll in
            try? await Task.sleep(for: .milliseconds(2))
            for await outcome in inner.send(batch) { yieldAll([outcome]) }
        })
    }
}

/// The in-memory store refusing every device prune as a lost primary would.
struct PruneRefusingStore: ForwardingNotifierStore {
    let base: InMemoryNotifierStore

    func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool { throw FailingAfterStore.down }
}
