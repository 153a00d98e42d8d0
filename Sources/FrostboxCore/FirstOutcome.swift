import Synchronization

/// The first of several outcomes to arrive, for a waiter that must not wait for the others:
/// work that ignores cancellation (a statement on a dying connection, a lease request the pool
/// does not give up) races a timer, and the caller goes on with whichever settles first.
/// Later outcomes are dropped.
public final class FirstOutcome<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result<Value, any Error>, Never>?)
        case settled(Result<Value, any Error>)
        case delivered
    }
    private let state = Mutex(State.waiting(nil))

    public init() {}

    /// Offers an outcome; only the first one counts.
    public func settle(_ outcome: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Result<Value, any Error>, Never>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            if let continuation {
                state = .delivered
                return continuation
            }
            state = .settled(outcome)
            return nil
        }
        waiter?.resume(returning: outcome)
    }

    /// Whether an outcome has been offered.
    public var isSettled: Bool {
        state.withLock { if case .waiting = $0 { false } else { true } }
    }

    /// The first outcome, once there is one (one waiter only). Cancelling the waiting task
    /// settles it with `CancellationError`.
    public func value() async throws -> Value {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let settled: Result<Value, any Error>? = state.withLock { state in
                    if case .settled(let outcome) = state {
                        state = .delivered
                        return outcome
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        } onCancel: {
            settle(.failure(CancellationError()))
        }
        return try outcome.get()
    }
}
