import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// Issue #50: verification pushes keep the in-flight bound too. A primary lost during a
/// verification round must not leave a page of devices proven but unrecorded: each would get
/// its verification push again next run, and a browser shows it.
@Suite("Device verification: the in-flight bound")
struct VerificationBoundTests {
    static let devices = 600
    static let bound = 40

    /// The in-memory store, refusing `markVerified` for good once `takenFirst` devices are
    /// marked, as a lost primary would; it notes the pushes sent at the first refusal.
    final class RefusingMarks: DeviceVerificationStore {
        let base: InMemoryNotifierStore
        let push: RecordingPushSender
        let takenFirst: Int
        let state = Mutex((marked: 0, sentAtRefusal: Int?.none))

        init(_ base: InMemoryNotifierStore, push: RecordingPushSender, takenFirst: Int) {
            self.base = base
            self.push = push
            self.takenFirst = takenFirst
        }

        func pendingDevices(after: DeviceToken?, limit: Int) async throws -> [PendingDevice] {
            try await base.pendingDevices(after: after, limit: limit)
        }
        func pendingDevices(createdBefore: Int64, limit: Int) async throws -> [PendingDevice] {
            try await base.pendingDevices(createdBefore: createdBefore, limit: limit)
        }
        func markVerified(_ tokens: [DeviceToken], at now: Int64) async throws {
            let sent = push.sent.count { $0.purpose == .verification }
            let refuse = state.withLock { state -> Bool in
                guard state.marked >= takenFirst else { return false }
                if state.sentAtRefusal == nil { state.sentAtRefusal = sent }
                return true
            }
            if refuse { throw StorageUnavailableError(.readOnly, code: "25006", message: "cannot execute UPDATE in a read-only transaction") }
            try await base.markVerified(tokens, at: now)
            state.withLock { $0.marked += tokens.count }
        }
        func purgePendingDevices(createdBefore: Int64) async throws -> Int { try await base.purgePendingDevices(createdBefore: createdBefore) }
        func verificationCounts() async throws -> VerificationCounts { try await base.verificationCounts() }
    }

    @Test("marks refused for good after 100 devices: ≤ bound verification pushes handed out after, ≤ bound sent and unrecorded, the run not completed")
    func refusedMidRound() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        let clock = TestClock(Fixtures.afternoon)
        for n in 0..<Self.devices {
            store.register(Fixtures.token(0x7000 + n), at: clock.now - 600, verified: false)
            store.subscribe(Fixtures.token(0x7000 + n), box: Fixtures.box, name: "Home")
        }
        let marks = RefusingMarks(store, push: push, takenFirst: 100)
        var configuration = NotifierSettings()
        configuration.concurrency = Self.bound
        let notifier = Notifier(
            store: store, forecasts: ScriptedForecastProvider(), push: push, configuration: configuration, logger: Logger(label: "test"),
            clock: { clock.now }, sleep: { _ in }, verification: DeviceVerificationStep(store: marks, pageSize: 1_000))
        let result = try? await notifier.run()
        if case .completed(let summary) = result { #expect(summary.status != .completed, "a round whose marks were refused did not complete") }
        let sent = push.sent.count { $0.purpose == .verification }
        let (marked, sentAtRefusal) = marks.state.withLock { ($0.marked, $0.sentAtRefusal) }
        let refusedAt = try #require(sentAtRefusal, "a mark was refused")
        #expect(sent - refusedAt <= Self.bound, "handed out after the first refused mark: \(sent - refusedAt)")
        #expect(sent - marked <= Self.bound, "sent and unrecorded: \(sent - marked) (sent \(sent), marked \(marked))")
        #expect(sent < Self.devices, "the round stopped rather than send the whole page")
    }

    @Test("a page larger than the bound is sent in bounded chunks and every device verified")
    func chunked() async throws {
        let store = InMemoryNotifierStore(verifiedDevicesOnly: true)
        let push = RecordingPushSender()
        let clock = TestClock(Fixtures.afternoon)
        let tokens = (0..<Self.devices).map { Fixtures.token(0x7800 + $0) }
        for token in tokens { store.register(token, at: clock.now - 600, verified: false) }
        var configuration = NotifierSettings()
        configuration.concurrency = Self.bound
        let notifier = Notifier(
            store: store, forecasts: ScriptedForecastProvider(), push: push, configuration: configuration, logger: Logger(label: "test"),
            clock: { clock.now }, sleep: { _ in }, verification: DeviceVerificationStep(store: store, pageSize: 1_000))
        guard case .completed(let summary) = try await notifier.run() else { throw CancellationError() }
        #expect(summary.devicesVerified == Self.devices && tokens.allSatisfy { store.isVerified($0) })
        #expect(push.sent.count { $0.purpose == .verification } == Self.devices, "one push each")
    }
}
