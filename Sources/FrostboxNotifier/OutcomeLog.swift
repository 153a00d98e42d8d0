import FrostboxCore
import Synchronization

/// Records delivery outcomes in grouped commits while sending goes on: outcomes are added as
/// they come in; whenever no write is under way, everything gathered so far goes to the store
/// in one durable write. The group grows with the send rate (one write in flight at a time),
/// so a fast sender pays one commit per thousands of outcomes and a slow one still has each
/// outcome on disk within one commit's time.
///
/// An outcome not yet written when the process dies leaves its entry pending: the next run
/// sends it again with the same apns-id and bytes. `finish()` waits for every added outcome
/// to be durable and reports the first failed write.
final class OutcomeLog: Sendable {
    typealias Outcome = (id: Int64, outcome: OutboxOutcome)

    private struct State {
        var gathered: [Outcome] = []
        var writing = false
        var failure: (any Error)?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let store: any NotifierStore
    /// Most outcomes in one write (bounds a transaction's length and memory).
    private let maximumGroup: Int
    private let state = Mutex(State())

    init(store: any NotifierStore, maximumGroup: Int = 20_000) {
        self.store = store
        self.maximumGroup = max(1, maximumGroup)
    }

    /// Adds an outcome; starts a write when none is under way.
    func add(_ id: Int64, _ outcome: OutboxOutcome) {
        let start = state.withLock { state -> Bool in
            state.gathered.append((id, outcome))
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Waits until every added outcome is durable; throws the first write's error, if any.
    func finish() async throws {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.writing else { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Writes groups until nothing is gathered, then wakes whoever waits in `finish()`.
    private func drain() async {
        while true {
            let group = state.withLock { state -> [Outcome] in
                guard state.gathered.count > maximumGroup else {
                    defer { state.gathered = [] }
                    return state.gathered
                }
                let group = Array(state.gathered.prefix(maximumGroup))
                state.gathered.removeFirst(maximumGroup)
                return group
            }
            if !group.isEmpty {
                do {
                    try await store.record(group)
                } catch {
                    state.withLock { state in if state.failure == nil { state.failure = error } }
                }
                continue
            }
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                // Checked again under the lock: an outcome added since the last look is written first.
                guard state.gathered.isEmpty else { return nil }
                state.writing = false
                defer { state.waiters = [] }
                return state.waiters
            }
            guard let waiters else { continue }
            for waiter in waiters { waiter.resume() }
            return
        }
    }
}
