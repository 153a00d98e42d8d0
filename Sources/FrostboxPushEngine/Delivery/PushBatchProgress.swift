import FrostboxCore
import Synchronization

/// Where one batch of a push client's `send` stands: how many pushes still lack an outcome, the
/// retries under way (each a task of its own, started as soon as its first attempt was
/// answered), whether the batch was cancelled, and the caller waiting for the last outcome.
/// Called from event loops (first answers) and tasks (retries) alike.
///
/// Not an `AsyncStream` of retries consumed by a task group: iterating a stream ends at once
/// in a cancelled task, which would drop the retries of a cancelled batch — and with them
/// the outcomes every push must get.
package final class PushBatchProgress: Sendable {
    private struct State {
        var remaining: Int
        var cancelled = false
        var retries: [Int: Task<Void, Never>] = [:]
        var nextRetry = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>
    private let yieldAll: @Sendable ([(index: Int, outcome: PushOutcome)]) -> Void

    /// `count` pushes, whose outcomes go to `yieldAll` (index in the caller's batch, outcome).
    package init(count: Int, yieldAll: @escaping @Sendable ([(index: Int, outcome: PushOutcome)]) -> Void) {
        state = Mutex(State(remaining: count))
        self.yieldAll = yieldAll
    }

    /// The final outcome of push `index`.
    package func finish(_ index: Int, _ outcome: PushOutcome) { finish([(index, outcome)]) }

    /// Final outcomes, handed over together.
    package func finish(_ outcomes: [(index: Int, outcome: PushOutcome)]) {
        guard !outcomes.isEmpty else { return }
        yieldAll(outcomes)
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= outcomes.count
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Push `index` needs more attempts: `attempts` runs in a task of its own (cancelled with
    /// the batch); once the batch is cancelled, it ends at once as a temporary failure.
    package func retry(_ index: Int, _ attempts: @escaping @Sendable () async -> PushOutcome) {
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            let key = state.nextRetry
            state.nextRetry += 1
            state.retries[key] = Task {
                let outcome = await attempts()
                self.state.withLock { _ = $0.retries.removeValue(forKey: key) }
                self.finish(index, outcome)
            }
            return true
        }
        if !started { finish(index, .temporaryFailure(reason: "cancelled")) }
    }

    /// The caller gave up: retries under way are cancelled, no new one starts.
    package func cancel() {
        let running = state.withLock { state -> [Task<Void, Never>] in
            state.cancelled = true
            return Array(state.retries.values)
        }
        for task in running { task.cancel() }
    }

    /// Returns once every push has its outcome.
    package func waitForAll() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.remaining > 0 else { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
