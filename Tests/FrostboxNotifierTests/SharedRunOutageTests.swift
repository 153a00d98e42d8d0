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

    func notifier(_ h: Harness, store: any NotifierStore, queue: ScriptedWorkQueue) -> Notifier {
        let (clock, sleeper) = (h.clock, h.sleeper)
        var configuration = h.configuration
        configuration.boxesPerChunk = 1
        return Notifier(
            store: store, forecasts: h.forecasts, push: h.push, configuration: configuration, workQueue: queue,
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

/// The in-memory store, refusing as unavailable (read-only) the first look-up of places in one box.
final class PlanningOutageStore: ForwardingNotifierStore {
    let base: InMemoryNotifierStore
    let box: GeoBox
    private let looked = Mutex(0)

    init(_ base: InMemoryNotifierStore, refusedPlanningOf box: GeoBox) {
        self.base = base
        self.box = box
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
        if refuse { throw OutageStore.refused }
        return try await base.places(in: boxes)
    }
}
