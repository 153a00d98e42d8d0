import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Testing

/// A run's status says how it went: `completed` only when nothing failed.
@Suite("Notify run status")
struct RunStatusTests {
    let alice = Fixtures.token(0xa11ce)
    let bob = Fixtures.token(0xb0b)

    @Test("a run where one box's forecast failed is degraded, stored so, and still alerts the other box")
    func someBoxesFailed() async throws {
        let h = Harness()
        _ = h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        _ = h.store.subscribe(bob, box: Fixtures.otherBox, name: "Cabin")
        h.forecasts.set(Fixtures.frost(low: -3))
        h.forecasts.fail(Fixtures.otherBox, with: .transport("connection refused"))
        let summary = try await h.run()
        #expect(summary.status == .degraded)
        #expect(summary.boxesFailed == 1)
        #expect(summary.alertsDelivered == 1)
        #expect(summary.line.contains(" degraded:"))
        #expect(h.store.runs.last?.status == .degraded)
    }

    @Test("a run where every box failed is failed")
    func everyBoxFailed() async throws {
        let h = Harness()
        _ = h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.forecasts.fail(Fixtures.box, with: .timeout)
        let summary = try await h.run()
        #expect(summary.status == .failed)
        #expect(h.store.runs.last?.status == .failed)
    }

    @Test("a run whose every push failed for good is failed; one delivered beside a failure is degraded")
    func pushFailures() async throws {
        let h = Harness()
        _ = h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.forecasts.set(Fixtures.frost(low: -3))
        h.push.script(alice, [.permanentFailure(status: 400, reason: "BadTopic")])
        #expect(try await h.run().status == .failed)

        let mixed = Harness()
        _ = mixed.store.subscribe(alice, box: Fixtures.box, name: "Home")
        _ = mixed.store.subscribe(bob, box: Fixtures.box, name: "Cabin")
        mixed.forecasts.set(Fixtures.frost(low: -3))
        mixed.push.script(alice, [.permanentFailure(status: 400, reason: "BadTopic")])
        let summary = try await mixed.run()
        #expect(summary.alertsDelivered == 1)
        #expect(summary.status == .degraded)
    }

    @Test("a run where everything worked, or there was nothing to do, is completed")
    func completed() async throws {
        let empty = Harness()
        #expect(try await empty.run().status == .completed)
        let h = Harness()
        _ = h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.forecasts.set(Fixtures.frost(low: -3))
        #expect(try await h.run().status == .completed)
    }
}
