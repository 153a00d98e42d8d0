import FrostboxCore
import Synchronization

/// The push budget of one process (the embedded set-up, or a cluster member told to pace
/// alone): each key's current window, in memory.
package final class LocalPushBudget: PushBudgetStore {
    private let windows = Mutex<[String: (window: Int64, used: Int)]>([:])

    package init() {}

    /// Grants up to `count` of `window`'s `limit`. A window older than the key's current one
    /// (a sender that read the clock before another moved on) gets nothing: granting it would
    /// start that window's count again and forget the current one's, letting both go over.
    package func take(key: String, window: Int64, count: Int, limit: Int) async throws -> Int {
        windows.withLock { windows in
            if let newest = windows[key]?.window, window < newest { return 0 }
            var current = windows[key].flatMap { $0.window == window ? $0 : nil } ?? (window: window, used: 0)
            let granted = max(0, min(count, limit - current.used))
            current.used += granted
            windows[key] = current
            return granted
        }
    }
}
