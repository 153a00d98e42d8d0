import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// A notifier over in-memory doubles, with a settable clock and a recording sleeper.
struct Harness {
    let store: InMemoryNotifierStore
    let forecasts: ScriptedForecastProvider
    let push: RecordingPushSender
    let clock = TestClock(Fixtures.afternoon)
    let sleeper = RecordingSleeper()
    /// Sends of entries sent before, as the notifier reports them.
    let resends = SendCount()
    var configuration = NotifierSettings()
    /// The check of kept nights each run ends with (issue #48); nil: none.
    var nightCheck: (any NightChecking)?

    init(
        store: InMemoryNotifierStore = InMemoryNotifierStore(), forecasts: ScriptedForecastProvider = ScriptedForecastProvider(),
        push: RecordingPushSender = RecordingPushSender()
    ) {
        self.store = store
        self.forecasts = forecasts
        self.push = push
    }

    func notifier(push: (any PushSender)? = nil, store: (any NotifierStore)? = nil, lock: (any NotifierRunLock)? = nil) -> Notifier {
        let clock = self.clock
        let sleeper = self.sleeper
        let resends = self.resends
        return Notifier(
            store: store ?? self.store, forecasts: forecasts, push: push ?? self.push, configuration: configuration,
            runLock: lock, logger: Logger(label: "test"),
            clock: { clock.now }, sleep: { try await sleeper.sleep($0) }, resent: { count in resends.add(count) }, nightCheck: nightCheck)
    }

    func run(_ notifier: Notifier? = nil) async throws -> NotifyRunSummary {
        guard case .completed(let summary) = try await (notifier ?? self.notifier()).run() else {
            Issue.record("run did not start")
            return NotifyRunSummary(startedAt: 0)
        }
        return summary
    }
}

/// A count the notifier's hooks add to.
final class SendCount: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}

/// Sends nothing and, at the first send, keeps a copy of the store: what a kill -9 at that
/// moment would leave on disk. Optionally lets the first `passThrough` sends go to `inner`.
final class CrashingPushSender: PushSender {
    let store: InMemoryNotifierStore
    let inner: RecordingPushSender
    let passThrough: Int
    private let state = Mutex<(sends: Int, snapshot: InMemoryNotifierStore?)>((0, nil))

    init(store: InMemoryNotifierStore, inner: RecordingPushSender, passThrough: Int = 0) {
        self.store = store
        self.inner = inner
        self.passThrough = passThrough
    }

    var snapshot: InMemoryNotifierStore? { state.withLock { $0.snapshot } }

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        PushOutcomes.concurrently(batch) { await self.sendOne($0) }
    }

    private func sendOne(_ notification: PushNotification) async -> PushOutcome {
        let n = state.withLock { state -> Int in
            state.sends += 1
            return state.sends
        }
        if n <= passThrough { return await inner.send(notification) }
        if n == passThrough + 1 {
            let copy = store.snapshot()
            state.withLock { $0.snapshot = copy }
        }
        return .temporaryFailure(reason: "process killed")
    }
}

/// A run lock another process holds.
struct HeldLock: NotifierRunLock {
    func tryLock() -> Bool { false }
    func unlock() {}
}
