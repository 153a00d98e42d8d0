import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

@Suite("NotifierService scheduling")
struct NotifierServiceTests {
    @Test("the first run comes after the first-run delay, then one per interval")
    func schedule() async throws {
        var h = Harness()
        h.configuration.firstRunDelay = .seconds(7)
        h.configuration.interval = .seconds(3600)
        h.store.subscribe(Fixtures.token(1), box: Fixtures.box, name: "Home")
        h.forecasts.set(Fixtures.forecast { _, _ in 9 })
        let sleeper = RecordingSleeper(limit: 3)
        let service = NotifierService(notifier: h.notifier(), configuration: h.configuration, logger: Logger(label: "test")) {
            try await sleeper.sleep($0)
        }
        try await service.run()
        #expect(sleeper.slept.first == .seconds(7))
        #expect(sleeper.slept.count == 3)
        #expect(sleeper.slept.dropFirst().allSatisfy { $0 > .seconds(3500) && $0 <= .seconds(3600) })
        // Runs after the first delay and after each interval; the fourth sleep stopped the loop.
        #expect(h.store.runs.count == 3)
    }

    @Test("when another process is running, the service retries after the busy delay")
    func busy() async throws {
        var h = Harness()
        h.configuration.busyRetryDelay = .seconds(42)
        let sleeper = RecordingSleeper(limit: 2)
        let service = NotifierService(notifier: h.notifier(lock: HeldLock()), configuration: h.configuration, logger: Logger(label: "test")) {
            try await sleeper.sleep($0)
        }
        try await service.run()
        #expect(sleeper.slept == [h.configuration.firstRunDelay, .seconds(42)])
        #expect(h.store.runs.isEmpty)
    }
}
