import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Testing

/// Verification that cannot be skipped or fooled (issue #43): the log-only sink proves
/// nothing, a 410's timestamp is honoured, devices of another project go, pending devices
/// expire, and a round killed midway keeps what it proved.
extension DeviceVerificationNotifierTests {
    func notifier(_ store: InMemoryNotifierStore, push: any PushSender, removing: Set<String> = [], ttl: Int64) -> Notifier {
        let clock = self.clock
        return Notifier(
            store: store, forecasts: ScriptedForecastProvider(), push: push, logger: Logger(label: "test"), clock: { clock.now },
            sleep: { _ in }, verification: DeviceVerificationStep(store: store, removingReasons: removing, pageSize: 50, pendingTTL: ttl))
    }

    @Test("the log-only sink verifies nothing: a device of a platform without an app stays pending")
    func logOnlyVerifiesNothing() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let android = DeviceToken(trusted: "fJ3kX9Qr:APA91bH_invented")
        store.register(android, at: clock.now - 60, platform: .android, verified: false)
        store.subscribe(android, box: Fixtures.box, name: "Home")
        let push = PushSenderByPlatform([.android: LogOnlyPushSender(logger: Logger(label: "test"))])
        let summary = try await run(notifier(store, push: push, ttl: 0))
        #expect(summary.devicesVerified == 0)
        #expect(store.hasDevice(android) && !store.isVerified(android))
        #expect(summary.boxesUnverified == 1)
    }

    @Test("a 410 prunes a device only if it was not registered again after the token's Unregistered timestamp")
    func unregisteredTimestampRule() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        let reinstalled = Fixtures.token(31), dead = Fixtures.token(32)
        // The gateway says both tokens died two hours ago; one device registered again an hour after that.
        let died = (clock.now - 7_200) * 1_000
        store.register(reinstalled, at: clock.now - 3_600, verified: false)
        store.register(dead, at: clock.now - 10_000, verified: false)
        for token in [reinstalled, dead] { push.script(token, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: died)]) }
        let summary = try await run(notifier(store, push: push, ttl: 0))
        #expect(store.hasDevice(reinstalled))
        #expect(!store.hasDevice(dead))
        #expect(summary.devicesRejected == 1)
    }

    @Test("a token of another Firebase project (SENDER_ID_MISMATCH) is removed like a token of another app")
    func senderIDMismatchRemoves() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        let foreign = DeviceToken(trusted: "fJ3kX9Qr:APA91bH_foreign")
        store.register(foreign, at: clock.now - 60, platform: .android, verified: false)
        push.script(foreign, [.permanentFailure(status: 403, reason: "SENDER_ID_MISMATCH")])
        _ = try await run(notifier(store, push: push, removing: ["DeviceTokenNotForTopic", "SENDER_ID_MISMATCH"], ttl: 0))
        #expect(!store.hasDevice(foreign))
    }

    @Test("a device pending longer than devices.pending_ttl is deleted before the round and gets no push")
    func pendingDevicesExpire() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        let old = Fixtures.token(41), young = Fixtures.token(42), verifiedOld = Fixtures.token(43)
        store.register(old, at: clock.now - 8 * 86_400, verified: false)
        store.register(young, at: clock.now - 6 * 86_400, verified: false)
        store.register(verifiedOld, at: clock.now - 30 * 86_400, verified: true)
        push.script(young, [.temporaryFailure(reason: "ServiceUnavailable")])
        let summary = try await run(notifier(store, push: push, ttl: 7 * 86_400))
        #expect(!store.hasDevice(old))
        #expect(store.hasDevice(young) && store.hasDevice(verifiedOld))
        #expect(!push.sent.contains { $0.token == old })
        #expect(summary.devicesVerified == 0)
    }

    @Test("a round stopped midway has already recorded the devices whose pushes were accepted")
    func verifiedAsTheyCome() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let tokens = (0..<10).map { Fixtures.token(50 + $0) }
        for token in tokens { store.register(token, at: clock.now - 60, verified: false) }
        // Accepts the first three pushes of a batch, then never answers again (a process about to be killed).
        let push = StallingPushSender(answered: 3)
        let run = Task { try await notifier(store, push: push, ttl: 0).run() }
        var verified = 0
        for _ in 0..<500 where verified < 3 {
            try await Task.sleep(for: .milliseconds(10))
            verified = tokens.filter(store.isVerified).count
        }
        #expect(verified == 3)
        run.cancel()
        _ = try? await run.value
    }
}

/// Answers the first `answered` pushes of a batch as delivered, then waits until cancelled.
private struct StallingPushSender: PushSender {
    let answered: Int

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        PushOutcomes { [answered] yield in
            for (index, push) in batch.enumerated().prefix(answered) { yield(index, .delivered(messageID: push.messageID)) }
            try? await Task.sleep(for: .seconds(3_600))
        }
    }
}
