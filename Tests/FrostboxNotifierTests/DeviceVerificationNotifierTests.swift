import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Testing

/// Devices proven real before they cost forecasts (issue #33), through the notifier over
/// in-memory doubles: a push double that, like a gateway, refuses tokens no device has.
@Suite("Device verification in notify runs")
struct DeviceVerificationNotifierTests {
    let clock = TestClock(Fixtures.afternoon)

    func notifier(
        _ store: InMemoryNotifierStore, _ forecasts: ScriptedForecastProvider, _ push: RecordingPushSender, removing: Set<String> = []
    ) -> Notifier {
        let clock = self.clock
        return Notifier(
            store: store, forecasts: forecasts, push: push, logger: Logger(label: "test"), clock: { clock.now }, sleep: { _ in },
            verification: DeviceVerificationStep(store: store, removingReasons: removing, pageSize: 7))
    }

    func run(_ notifier: Notifier) async throws -> NotifyRunSummary {
        guard case .completed(let summary) = try await notifier.run() else {
            Issue.record("run did not start")
            return NotifyRunSummary(startedAt: 0)
        }
        return summary
    }

    func box(_ n: Int) -> GeoBox { GeoBox(latitudeIndex: 1_200 + n / 100, longitudeIndex: 400 + n % 100) }

    @Test("invented tokens are removed and never fetched; real boxes get the short budget first; the run says degraded")
    func inventedAmongReal() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let forecasts = ScriptedForecastProvider(budget: 15)
        let push = RecordingPushSender()
        // 20 real devices in 20 boxes, registered first; then 240 invented tokens, each in a box of its own.
        let real = (0..<20).map { Fixtures.token(10_000 + $0) }
        let invented = (0..<240).map { Fixtures.token(20_000 + $0) }
        for (i, token) in real.enumerated() {
            store.register(token, at: clock.now - 7_200, verified: false)
            store.subscribe(token, box: box(i), name: "Real \(i)")
            forecasts.set(Fixtures.forecast(box: box(i)) { _, _ in 9 })
        }
        for (i, token) in invented.enumerated() {
            store.register(token, at: clock.now - 600, verified: false)
            store.subscribe(token, box: box(100 + i), name: "Invented \(i)")
            // No forecast scripted for these boxes: asking for one stops the test.
            push.script(token, [.invalidToken(reason: "BadDeviceToken", unregisteredAtMilliseconds: nil)])
        }

        let summary = try await run(notifier(store, forecasts, push))
        #expect(summary.devicesVerified == 20)
        #expect(summary.devicesRejected == 240)
        #expect(invented.allSatisfy { !store.hasDevice($0) })
        #expect(real.allSatisfy { store.isVerified($0) })
        // Only real boxes were asked for, and the budget covered 15 of them.
        let asked = Set(forecasts.calls.flatMap { $0 })
        #expect(asked == Set((0..<20).map(box)))
        #expect(summary.forecastsFetched == 15)
        #expect(summary.boxesLeftOut == 5)
        #expect(summary.boxesUnverified == 0)
        #expect(summary.status == .degraded)
        // Every verification push was a background push with nothing to show, one per device.
        let verifications = push.sent.filter { $0.purpose == .verification }
        #expect(verifications.count == 260)
        #expect(Set(verifications.map(\.token)).count == 260)
        #expect(verifications.allSatisfy { $0.priority == .throttled && $0.content == AlertContent() && $0.collapseID == nil })
    }

    @Test("a device whose verification push failed for another reason stays pending: its box waits, it gets no alert")
    func temporaryFailureWaits() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let forecasts = ScriptedForecastProvider()
        let push = RecordingPushSender()
        let alice = Fixtures.token(1), bob = Fixtures.token(2), carol = Fixtures.token(3), dave = Fixtures.token(4)
        for token in [alice, bob, carol, dave] { store.register(token, at: clock.now - 60, verified: false) }
        store.subscribe(alice, box: Fixtures.box, name: "Home")
        store.subscribe(bob, box: Fixtures.box, name: "Home")
        store.subscribe(carol, box: Fixtures.otherBox, name: "Cottage")
        store.subscribe(dave, box: Fixtures.otherBox, name: "Cottage")
        forecasts.set(Fixtures.frost(low: -1))
        push.script(bob, [.temporaryFailure(reason: "ServiceUnavailable")])
        push.script(carol, [.authFailure(reason: "InvalidProviderToken")])
        push.script(dave, [.permanentFailure(status: 400, reason: "DeviceTokenNotForTopic")])

        let summary = try await run(notifier(store, forecasts, push, removing: ["DeviceTokenNotForTopic"]))
        #expect(summary.devicesVerified == 1)
        #expect(summary.devicesRejected == 1)
        #expect(!store.hasDevice(dave))
        #expect(store.hasDevice(bob) && !store.isVerified(bob))
        #expect(store.hasDevice(carol) && !store.isVerified(carol))
        // The cottage has no verified device: not asked for, counted.
        #expect(forecasts.calls.flatMap { $0 } == [Fixtures.box])
        #expect(summary.boxesUnverified == 1)
        // Alice (verified) is alerted; Bob, in the same box but pending, is not.
        let alerts = push.sent.filter { $0.purpose == .alert }
        #expect(alerts.map(\.token) == [alice])

        // Next run: Bob's and Carol's pushes go through; the cottage is fetched, Bob alerted.
        forecasts.set(Fixtures.frost(low: -1, box: Fixtures.otherBox))
        clock.advance(3_600)
        let next = try await run(notifier(store, forecasts, push))
        #expect(next.devicesVerified == 2)
        #expect(next.boxesUnverified == 0)
        #expect(Set(push.sent.filter { $0.purpose == .alert }.map(\.token)) == [alice, bob, carol])
    }

    @Test("a dry run proves no device and sends nothing")
    func dryRunSendsNothing() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        store.register(Fixtures.token(5), at: clock.now, verified: false)
        store.subscribe(Fixtures.token(5), box: Fixtures.box, name: "Home")
        guard case .completed(let summary) = try await notifier(store, ScriptedForecastProvider(), push).run(dryRun: true) else {
            Issue.record("run did not start")
            return
        }
        #expect(summary.devicesVerified == 0)
        #expect(push.sent.isEmpty)
        #expect(!store.isVerified(Fixtures.token(5)))
    }
}
