import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// A `NotifyWorkQueue` whose answers the test scripts, over an in-memory store: boxes are
/// handed out from a list (one chunk per claim), pending entries nobody took yet are handed out
/// once (those queued after the queue was made are their writer's, this worker's, as
/// `enqueue` claims them on PostgreSQL), and "another worker" holds work for a number of checks.
final class ScriptedWorkQueue: NotifyWorkQueue {
    struct State {
        var boxes: [GeoBox] = []
        var completed: [GeoBox] = []
        var handedOutEntries: Set<Int64> = []
        /// `remainingWork` reports work held elsewhere this many more times.
        var othersHoldFor = 0
        /// Boxes that become claimable once the others' work is "taken over".
        var takenOverBoxes: [GeoBox] = []
        var parts: [NotifyRunSummary] = []
        /// Calls of `joinOrStartRun`: (startNew, startedAfter).
        var asked: [(startNew: Bool, startedAfter: Int64?)] = []
        /// `completeBoxes` is refused as unavailable this many more times.
        var refusedCompletes = 0
        /// The next `claimBoxes` fails with this.
        var failedClaim: StorageUnavailableError?
    }

    let worker = "test-worker"
    let leaseSeconds: Int64 = 30
    let store: InMemoryNotifierStore
    let state: Mutex<State>
    let openRun: Bool
    /// The last outbox id when the queue was made: entries after it are this worker's own.
    let ownEntriesAfter: Int64

    init(store: InMemoryNotifierStore, boxes: [GeoBox], openRun: Bool = true) {
        self.store = store
        self.state = Mutex(State(boxes: boxes))
        self.openRun = openRun
        self.ownEntriesAfter = store.outbox.map(\.entry.id).max() ?? 0
    }

    func joinOrStartRun(at now: Int64, startNew: Bool, startedAfter: Int64?) async throws -> NotifyRunJoin? {
        let boxes = state.withLock { state -> Int in
            state.asked.append((startNew, startedAfter))
            return state.boxes.count + state.takenOverBoxes.count
        }
        guard openRun || startNew else { return nil }
        return NotifyRunJoin(runID: 7, started: !openRun, boxes: boxes)
    }

    func claimBoxes(runID: Int64, limit: Int, at now: Int64) async throws -> [GeoBox] {
        if let failure = state.withLock({ state in
            defer { state.failedClaim = nil }
            return state.failedClaim
        }) {
            throw failure
        }
        return state.withLock { state in
            let chunk = Array(state.boxes.prefix(limit))
            state.boxes.removeFirst(chunk.count)
            return chunk
        }
    }

    func completeBoxes(runID: Int64, _ boxes: [GeoBox], at now: Int64) async throws {
        let refused = state.withLock { state in
            guard state.refusedCompletes > 0 else { return false }
            state.refusedCompletes -= 1
            return true
        }
        if refused { throw OutageStore.refused }
        state.withLock { $0.completed += boxes }
    }

    func claimPendingOutbox(runID: Int64, limit: Int, at now: Int64) async throws -> [OutboxEntry] {
        let pending = store.outbox.filter { $0.status == .pending && $0.entry.id <= ownEntriesAfter }.map(\.entry)
        return state.withLock { state in
            let free = pending.filter { !state.handedOutEntries.contains($0.id) }.prefix(limit)
            state.handedOutEntries.formUnion(free.map(\.id))
            return Array(free)
        }
    }

    func reclaimPendingOutbox(runID: Int64, ids: [Int64], at now: Int64) async throws -> [OutboxEntry] {
        let wanted = Set(ids)
        let pending = store.outbox.filter { $0.status == .pending && wanted.contains($0.entry.id) && !$0.entry.isHeld(at: now) }.map(\.entry)
        state.withLock { $0.handedOutEntries.formUnion(pending.map(\.id)) }
        return pending
    }

    func renewLeases(runID: Int64, at now: Int64) async throws {}

    func remainingWork(runID: Int64, at now: Int64) async throws -> NotifyRunRemainder {
        state.withLock { state in
            if state.othersHoldFor > 0 {
                state.othersHoldFor -= 1
                // The others' leases run out: their boxes come free.
                if state.othersHoldFor == 0 {
                    state.boxes += state.takenOverBoxes
                    state.takenOverBoxes = []
                }
                return NotifyRunRemainder(boxes: 1, claimedEntries: 0)
            }
            return NotifyRunRemainder(boxes: state.boxes.count, claimedEntries: 0)
        }
    }

    func finishPart(_ part: NotifyRunSummary, at now: Int64) async throws -> Bool {
        state.withLock { $0.parts.append(part) }
        return true
    }

    func workers(ofRuns runIDs: [Int64]) async throws -> [Int64: [NotifyRunWorker]] { [:] }

}

@Suite("Notifier: runs shared with other instances (a work queue)")
struct SharedRunNotifierTests {
    let alice = Fixtures.token(0xa11ce)
    let bob = Fixtures.token(0xb0b)

    func notifier(_ h: Harness, queue: ScriptedWorkQueue) -> Notifier {
        let clock = h.clock
        let sleeper = h.sleeper
        var configuration = h.configuration
        configuration.boxesPerChunk = 1
        configuration.joinPollInterval = .milliseconds(2_500)
        return Notifier(
            store: h.store, forecasts: h.forecasts, push: h.push, configuration: configuration, workQueue: queue,
            logger: Logger(label: "test"), clock: { clock.now }, sleep: { try await sleeper.sleep($0) })
    }

    @Test("a shared run claims boxes chunk by chunk until none is left, marks each done, and stores its part")
    func claimsChunks() async throws {
        let h = Harness()
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(bob, box: Fixtures.otherBox, name: "Cabin")
        h.forecasts.set(Fixtures.frost(low: -1.6))
        h.forecasts.set(Fixtures.frost(low: -1.6, box: Fixtures.otherBox))
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box, Fixtures.otherBox], openRun: false)
        let notifier = notifier(h, queue: queue)
        #expect(notifier.sharesRuns)
        guard case .completed(let summary) = try await notifier.run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.id == 7)
        #expect(summary.boxes == 2)
        #expect(summary.alertsPlanned == 2 && summary.alertsDelivered == 2)
        #expect(Set(h.push.sent.map(\.token)) == [alice, bob])
        let state = queue.state.withLock { $0 }
        #expect(state.completed == [Fixtures.box, Fixtures.otherBox], "each one-box chunk marked done, in order")
        #expect(state.parts.map(\.id) == [7])
        #expect(state.parts.first?.status == .completed)
        // The store's own run table is not used: the queue holds the shared run.
        #expect(h.store.runs.isEmpty)
    }

    @Test("work another instance held comes free after its lease: the run waits, then plans those boxes and sends the entries nobody holds")
    func takesOverWhatOthersLeft() async throws {
        let h = Harness()
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(bob, box: Fixtures.otherBox, name: "Cabin")
        h.forecasts.set(Fixtures.frost(low: -1.6))
        h.forecasts.set(Fixtures.frost(low: -1.6, box: Fixtures.otherBox))
        // The other worker planned Fixtures.box (its alert is pending in the outbox) and died.
        let dead = CrashingPushSender(store: h.store, inner: h.push)
        _ = try await Notifier(
            store: h.store, forecasts: h.forecasts, push: dead, workQueue: ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box], openRun: false),
            logger: Logger(label: "test"), clock: { [clock = h.clock] in clock.now }, sleep: { _ in }
        ).run()
        #expect(h.store.outbox.filter { $0.status == .pending }.count == 1)
        #expect(h.push.sent.isEmpty)

        // This worker joins; Fixtures.otherBox is still held by the dead one for two checks.
        let queue = ScriptedWorkQueue(store: h.store, boxes: [], openRun: true)
        queue.state.withLock {
            $0.othersHoldFor = 2
            $0.takenOverBoxes = [Fixtures.otherBox]
            // (The dead worker's pending entry is handed out by the first claim: the script
            // does not model heartbeats; the PostgreSQL queue's tests do.)
        }
        guard case .completed(let summary) = try await notifier(h, queue: queue).run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.alertsCarriedOver == 1, "the dead worker's pending alert was taken over")
        #expect(summary.boxes == 1, "the box whose lease expired was planned here")
        #expect(Set(h.push.sent.map(\.token)) == [alice, bob])
        #expect(h.store.outbox.allSatisfy { $0.status == .delivered })
        #expect(h.sleeper.slept.filter { $0 == .milliseconds(2_500) }.count >= 2, "it waited for the others' leases, a join interval at a time")
    }

    @Test("with no run in progress, joining does nothing; a scheduled run starts one unless one started within 90 % of the interval")
    func joinOnlyWhenOpen() async throws {
        let h = Harness()
        let queue = ScriptedWorkQueue(store: h.store, boxes: [], openRun: false)
        let notifier = notifier(h, queue: queue)
        #expect(try await notifier.joinRunInProgress() == nil)
        guard case .completed = try await notifier.runScheduled(interval: .seconds(3600)) else {
            Issue.record("the scheduled run did not start")
            return
        }
        let asked = queue.state.withLock { $0.asked }
        #expect(asked.map(\.startNew) == [false, true])
        #expect(asked.last?.startedAfter == h.clock.now - 3_240)
    }
}
