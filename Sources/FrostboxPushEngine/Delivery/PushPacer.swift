import FrostboxCore
import Synchronization

/// Keeps one app's sending within its platform's quota (FCM: 600,000 messages a minute per
/// project by default, 4xx answers counted): every attempt takes a message from a budget of
/// `messagesPerMinute / 60` per wall-clock second (or, under 60 a minute, of all of them per
/// minute), so that no 60 consecutive seconds carry more than `messagesPerMinute`. The budget
/// lives in a `PushBudgetStore`: in memory for one process, in PostgreSQL for a cluster, whose
/// instances then share it. An answer with `Retry-After` (429 QUOTA_EXCEEDED, 503) pauses the
/// app's sending for that long.
package final class PushPacer: Sendable {
    /// The budget's key (`fcm.<package name>`).
    package let key: String
    /// Messages a minute at most.
    package let messagesPerMinute: Int
    private let store: any PushBudgetStore
    private let clock: @Sendable () -> Int64
    private let sleep: @Sendable (Duration) async throws -> Void
    private let state = Mutex(State())

    private struct State {
        /// Epoch milliseconds.
        var pausedUntil: Int64 = 0
        var waitedMilliseconds: Int64 = 0
        var pauses = 0
        var taken = 0
    }

    /// - Parameters:
    ///   - clock: wall-clock milliseconds since the epoch (the windows are the same on every instance).
    ///   - sleep: waits (tests inject one that moves their clock).
    package init(
        key: String, messagesPerMinute: Int, store: any PushBudgetStore, clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        precondition(messagesPerMinute > 0, "an unpaced app has no pacer")
        self.key = key
        self.messagesPerMinute = messagesPerMinute
        self.store = store
        self.clock = clock
        self.sleep = sleep
    }

    /// The window length in milliseconds and the messages each may carry.
    package var window: (milliseconds: Int64, messages: Int) {
        messagesPerMinute >= 60 ? (1_000, messagesPerMinute / 60) : (60_000, messagesPerMinute)
    }

    /// Waits until at least one of `count` messages may go, and returns how many may (1…count).
    /// Cancelled (or the budget unreadable for as long as a window): returns 0, and the caller
    /// sends nothing.
    package func acquire(_ count: Int) async -> Int {
        guard count > 0 else { return 0 }
        let (length, perWindow) = window
        var waited: Int64 = 0
        defer { state.withLock { $0.waitedMilliseconds += waited } }
        while !Task.isCancelled {
            let now = clock()
            let paused = state.withLock { $0.pausedUntil }
            if paused > now {
                guard await wait(paused - now, &waited) else { break }
                continue
            }
            let windowStart = now - now % length
            let granted: Int
            do {
                granted = try await store.take(key: key, window: windowStart / 1_000, count: count, limit: perWindow)
            } catch {
                // The budget cannot be read: wait a window rather than send unpaced.
                guard await wait(length, &waited) else { break }
                continue
            }
            if granted > 0 {
                state.withLock { $0.taken += granted }
                return granted
            }
            // Until the next window from the time now, not from before the take: a slow budget
            // store (a database round trip) would otherwise make the wait overshoot the window.
            guard await wait(windowStart + length - clock(), &waited) else { break }
        }
        return 0
    }

    private func wait(_ milliseconds: Int64, _ waited: inout Int64) async -> Bool {
        let delay = max(milliseconds, 1)
        do {
            try await sleep(.milliseconds(delay))
        } catch {
            return false
        }
        waited += delay
        return true
    }

    /// The platform asked to wait `retryAfter` (429 or 503 with `Retry-After`): nothing more
    /// goes out for this app before then.
    package func pause(for retryAfter: Duration) {
        let until = clock() + Int64(retryAfter / .milliseconds(1))
        state.withLock {
            if until > $0.pausedUntil {
                $0.pausedUntil = until
                $0.pauses += 1
            }
        }
    }

    /// What the status page and metrics show.
    package var snapshot: PushPacing {
        let now = clock()
        return state.withLock {
            PushPacing(
                budget: key, messagesPerMinute: messagesPerMinute, sent: $0.taken, waitedSeconds: Double($0.waitedMilliseconds) / 1_000,
                pauses: $0.pauses, pausedForSeconds: $0.pausedUntil > now ? Double($0.pausedUntil - now) / 1_000 : 0)
        }
    }
}
