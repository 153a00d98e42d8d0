import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Testing

/// A run that did not complete says why in its own line (printed by `notify --once`, logged at
/// warning or error) and in its stored `error`, not only in debug lines.
@Suite("Notify run failure reasons")
struct RunReasonTests {
    @Test("every box failing names the count and the first failure")
    func boxFailures() async throws {
        let h = Harness()
        let boxes = (0..<3).map { GeoBox(latitudeIndex: 1200 + $0, longitudeIndex: 500) }
        for (index, box) in boxes.enumerated() {
            _ = h.store.subscribe(Fixtures.token(index + 1), box: box, name: "Home")
            h.forecasts.fail(box, with: .transport("could not resolve api.open-meteo.com"))
        }
        let summary = try await h.run()
        #expect(summary.status == .failed)
        #expect(summary.error == "box-failures=3: transport: could not resolve api.open-meteo.com")
        #expect(summary.line.contains("error=box-failures=3: transport: could not resolve api.open-meteo.com"))
        #expect(h.store.runs.last?.error == summary.error)
    }

    @Test("a degraded run names the refused push beside the failed box")
    func mixed() async throws {
        let h = Harness()
        let alice = Fixtures.token(0xa11ce), bob = Fixtures.token(0xb0b), carol = Fixtures.token(0xca201)
        _ = h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        _ = h.store.subscribe(bob, box: Fixtures.box, name: "Cabin")
        _ = h.store.subscribe(carol, box: Fixtures.otherBox, name: "Shed")
        h.forecasts.set(Fixtures.frost(low: -3))
        h.forecasts.fail(Fixtures.otherBox, with: .timeout)
        h.push.script(alice, [.permanentFailure(status: 400, reason: "BadTopic")])
        let summary = try await h.run()
        #expect(summary.status == .degraded)
        #expect(summary.error == "box-failures=1: timeout; push-failures=1: 400 BadTopic")
    }

    @Test("a completed run has no reason")
    func completed() async throws {
        let h = Harness()
        _ = h.store.subscribe(Fixtures.token(1), box: Fixtures.box, name: "Home")
        h.forecasts.set(Fixtures.frost(low: -3))
        let summary = try await h.run()
        #expect(summary.status == .completed)
        #expect(summary.error == nil)
    }
}
