import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// A shared run's worker whose database is unavailable for a while: it waits it out and resumes
/// its part (a short outage costs no failed part), within a bounded wait.
@Suite("Notifier: a shared run's part through a database outage")
struct SharedRunOutageTests {
    let alice = Fixtures.token(0xa11ce)
    let bob = Fixtures.token(0xb0b)

    func notifier(_ h: Harness, store: any NotifierStore, queue: ScriptedWorkQueue, push: (any PushSender)? = nil) -> Notifier {
        let (clock, sleeper) = (h.clock, h.sleeper)
        var configuration = h.configuration
        configuration.boxesPerChunk = 1
        return Notifier(
            store: store, forecasts: h.forecasts, push: push ?? h.push, configuration: configuration, workQueue: queue,
            logger: Logger(label: "test"), clock: { clock.now }, sleep: { try await sleeper.sleep($0) })
    }

    func twoFrostyBoxes(_ h: Harness) {
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(bob, box: Fixtures.otherBox, name: "Cabin")
        h.forecasts.set(Fixtures.frost(low: -1.6))
        h.forecasts.set(Fixtures.frost(low: -1.6, box: Fixtures.otherBox))
    }

    @Test("refused work-queue calls are tried again in place, a refused planning step resumes with its chunk: the part completes, each alert sent once")
    func resumesAfterShortOutage() async throws {
        let h = Harness()
        twoFrostyBoxes(h)
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box, Fixtures.otherBox], openRun: false)
        // Planning the first chunk is refused once after its box was claimed (the queue hands
        // boxes out once, as a lease would); then marking it done is refused twice.
        queue.state.withLock { $0.refusedCompletes = 2 }
        let store = PlanningOutageStore(h.store, refusedPlanningOf: Fixtures.box)
        guard case .completed(let summary) = try await notifier(h, store: store, queue: queue).run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.status == .completed, "\(summary.error ?? "")")
        #expect(summary.boxes == 2)
        #expect(summary.alertsPlanned == 2 && summary.alertsDelivered == 2)
        #expect(h.push.sent.map(\.token).sorted() == [alice, bob].sorted(), "each alert sent once")
        let state = queue.state.withLock { $0 }
        #expect(state.completed == [Fixtures.box, Fixtures.otherBox], "each chunk marked done once, in order")
        #expect(state.parts.map(\.status) == [.completed])
        #expect(store.lookups == 2, "refused once, answered on resuming")
        #expect(h.sleeper.slept == [.milliseconds(250), .milliseconds(250), .milliseconds(500)], "a pause before each new try; a success starts over")
    }

    @Test("a chunk's delivery cut short by a refused planning step: the resumed part sends what it had not, each alert once, none left pending")
    func resumedPartSendsWhatTheCutLeft() async throws {
        var h = Harness()
        // Two pushes at a time (two windows of one): most of the first chunk is still unsent
        // when the next chunk's planning is refused and its delivery is stopped.
        h.configuration.concurrency = 2
        let home = (0..<6).map { Fixtures.token(0x5000 + $0) }
        for token in home { h.store.subscribe(token, box: Fixtures.box, name: "Home") }
        h.store.subscribe(bob, box: Fixtures.otherBox, name: "Cabin")
        h.forecasts.set(Fixtures.frost(low: -1.6))
        h.forecasts.set(Fixtures.frost(low: -1.6, box: Fixtures.otherBox))
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box, Fixtures.otherBox], openRun: false)
        // The first two pushes are answered only once their delivery is stopped; the second
        // chunk's planning is refused once they are in flight.
        let push = HoldingPushSender(held: 2)
        let store = PlanningOutageStore(h.store, refusedPlanningOf: Fixtures.otherBox) { await push.waitUntilHolding() }
        guard case .completed(let summary) = try await notifier(h, store: store, queue: queue, push: push).run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(store.lookups == 2, "the second chunk's planning was refused once")
        let byToken = push.sent.reduce(into: [DeviceToken: Int]()) { $0[$1.token, default: 0] += 1 }
        #expect(byToken == Dictionary(uniqueKeysWithValues: (home + [bob]).map { ($0, 1) }), "each alert sent once: \(byToken.values.sorted())")
        #expect(h.store.outbox.count == 7 && h.store.outbox.allSatisfy { $0.status == .delivered }, "none left pending")
        #expect(summary.status == .completed, "\(summary.error ?? "")")
        #expect(summary.alertsPlanned == 7 && summary.alertsDelivered == 7, "\(summary.alertsPlanned) planned, \(summary.alertsDelivered) delivered")
        #expect(queue.state.withLock { $0.parts.map(\.status) } == [.completed])
    }

    @Test("a claim whose connection broke may have been stored: the part ends failed, not resumed, so its unknown leases expire")
    func uncertainClaimIsNotResumed() async throws {
        let h = Harness()
        twoFrostyBoxes(h)
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box, Fixtures.otherBox], openRun: false)
        queue.state.withLock { $0.failedClaim = StorageUnavailableError(.down, message: "the connection to the server failed (serverClosedConnection)") }
        guard case .completed(let summary) = try await notifier(h, store: h.store, queue: queue).run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.status == .failed)
        #expect(summary.error?.contains("the claim may have been stored") == true, "\(summary.error ?? "")")
        #expect(h.sleeper.slept.isEmpty, "no pause: nothing is tried again")
        #expect(queue.state.withLock { $0.parts.map(\.status) } == [.failed])
    }

    @Test("an outage longer than the wait ends the part failed with the reason, its part stored")
    func longOutageFailsThePart() async throws {
        var h = Harness()
        h.configuration.endRetryWindow = .seconds(30)
        twoFrostyBoxes(h)
        let queue = ScriptedWorkQueue(store: h.store, boxes: [Fixtures.box, Fixtures.otherBox], openRun: false)
        queue.state.withLock { $0.refusedCompletes = 1_000 }
        guard case .completed(let summary) = try await notifier(h, store: h.store, queue: queue).run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.status == .failed)
        #expect(summary.error?.contains("read-only") == true, "\(summary.error ?? "")")
        #expect(queue.state.withLock { $0.parts.map(\.status) } == [.failed])
        let waited = h.sleeper.slept.reduce(Duration.zero, +)
        #expect(waited <= .seconds(30) && waited >= .seconds(25), "waited the window out, no longer: \(waited)")
    }
}

/// The in-memory store, refusing as unavailable (read-only) the first look-up of places in one
/// box, once `beforeRefusing` has returned.
final class PlanningOutageStore: ForwardingNotifierStore {
    let base: InMemoryNotifierStore
    let box: GeoBox
    private let beforeRefusing: @Sendable () async -> Void
    private let looked = Mutex(0)

    init(_ base: InMemoryNotifierStore, refusedPlanningOf box: GeoBox, beforeRefusing: @escaping @Sendable () async -> Void = {}) {
        self.base = base
        self.box = box
        self.beforeRefusing = beforeRefusing
    }

    /// Look-ups of places in `box`, the refused one included.
    var lookups: Int { looked.withLock { $0 } }

    func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] {
        let refuse =
            boxes.contains(box)
            && looked.withLock { count in
                defer { count += 1 }
                return count == 0
            }
        if refuse {
            await beforeRefusing()
            throw OutageStore.refused
        }
        return try await base.places(in: boxes)
    }
}
