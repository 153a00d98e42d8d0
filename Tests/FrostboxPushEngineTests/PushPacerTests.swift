import FrostboxCore
import FrostboxDoubles
import Synchronization
import Testing

@testable import FrostboxPushEngine

/// The in-process budget, recording what each take granted and for which window.
final class LoggedBudget: PushBudgetStore {
    private let base = LocalPushBudget()
    private let grants = Mutex<[(window: Int64, count: Int)]>([])

    func take(key: String, window: Int64, count: Int, limit: Int) async throws -> Int {
        let granted = try await base.take(key: key, window: window, count: count, limit: limit)
        grants.withLock { $0.append((window, granted)) }
        return granted
    }

    /// Messages granted per one-second window (by start, epoch seconds).
    var perSecond: [Int64: Int] {
        grants.withLock { $0.reduce(into: [:]) { $0[$1.window, default: 0] += $1.count } }
    }
}

@Suite("The push pacer: a quota in messages a minute, kept with a frozen clock")
struct PushPacerTests {
    @Test("three senders wanting 1,200 messages at 600 a minute: never more than 10 in a second or 600 in 60 seconds, done in 2 minutes")
    func neverExceeded() async throws {
        let time = SteppedWallClock()
        let budget = LoggedBudget()
        let pacer = PushPacer(key: "fcm.test", messagesPerMinute: 600, store: budget, clock: time.clock, sleep: time.sleep)
        #expect(pacer.window == (1_000, 10))
        let start = time.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    var left = 400
                    while left > 0 {
                        let granted = await pacer.acquire(min(left, 7))
                        #expect(granted > 0 && granted <= min(left, 7))
                        left -= granted
                    }
                }
            }
        }
        let perSecond = budget.perSecond
        #expect(perSecond.values.reduce(0, +) == 1_200)
        #expect(perSecond.values.allSatisfy { $0 <= 10 })
        let first = start / 1_000
        let last = perSecond.keys.max() ?? first
        for window in first...last {
            let minute = (window..<(window + 60)).reduce(0) { $0 + (perSecond[$1] ?? 0) }
            #expect(minute <= 600, "60 seconds from \(window) carried \(minute)")
        }
        // 1,200 at 10 a second: the last ones go out in the 120th second. The frozen clock moves
        // a whole window when a sender's sleep ends, so a sender on the other thread that read
        // it a moment before may leave one window short (its real-time twin: a sender that
        // oversleeps by a few milliseconds); never more than two.
        let short = perSecond.filter { $0.value < 10 }.map { ($0.key - first, $0.value) }.sorted { $0.0 < $1.0 }
        #expect((119...121).contains(last - first), "windows short of 10: \(short)")
        #expect(pacer.snapshot.sent == 1_200)
    }

    @Test("the in-process budget grants a window up to its limit, and nothing to a window older than its newest (a late sender)")
    func staleWindow() async throws {
        let budget = LocalPushBudget()
        #expect(try await budget.take(key: "k", window: 100, count: 7, limit: 10) == 7)
        #expect(try await budget.take(key: "k", window: 100, count: 7, limit: 10) == 3)
        #expect(try await budget.take(key: "k", window: 101, count: 4, limit: 10) == 4)
        #expect(try await budget.take(key: "k", window: 100, count: 7, limit: 10) == 0, "window 100 is past: no new count for it")
        #expect(try await budget.take(key: "k", window: 101, count: 7, limit: 10) == 6, "window 101's count was kept")
        #expect(try await budget.take(key: "other", window: 50, count: 1, limit: 10) == 1, "keys are apart")
    }

    @Test("under 60 a minute the window is the minute: 30 a minute go out 30 at a time")
    func slowQuota() async throws {
        let time = SteppedWallClock(1_800_000_000_000)
        let pacer = PushPacer(key: "fcm.slow", messagesPerMinute: 30, store: LocalPushBudget(), clock: time.clock, sleep: time.sleep)
        #expect(pacer.window == (60_000, 30))
        #expect(await pacer.acquire(100) == 30)
        let before = time.now
        #expect(await pacer.acquire(5) == 5)
        #expect(time.now - before == 60_000)
    }

    @Test("a Retry-After pauses every sender until it has passed, and is counted")
    func retryAfterPauses() async throws {
        let time = SteppedWallClock()
        let pacer = PushPacer(key: "fcm.paused", messagesPerMinute: 600_000, store: LocalPushBudget(), clock: time.clock, sleep: time.sleep)
        #expect(await pacer.acquire(10) == 10)
        let paused = time.now
        pacer.pause(for: .seconds(7))
        pacer.pause(for: .seconds(2))  // a shorter one never cuts the pause short
        #expect(pacer.snapshot.pauses == 1)
        #expect(pacer.snapshot.pausedForSeconds == 7)
        #expect(await pacer.acquire(10) == 10)
        #expect(time.now - paused >= 7_000)
        #expect(pacer.snapshot.waitedSeconds >= 7)
        #expect(pacer.snapshot.pausedForSeconds == 0)
    }

    @Test("a cancelled sender waiting for the budget gets nothing")
    func cancelled() async throws {
        let pacer = PushPacer(
            key: "fcm.cancel", messagesPerMinute: 60, store: LocalPushBudget(), clock: { 1_800_000_000_000 },
            sleep: { try await Task.sleep(for: $0) })
        #expect(await pacer.acquire(1) == 1)
        let waiting = Task { await pacer.acquire(1) }
        waiting.cancel()
        #expect(await waiting.value == 0)
    }
}
