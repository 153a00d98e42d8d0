import FrostboxCore
import Synchronization

/// A `PushSender` that answers every push `.delivered` with its message id, but holds the
/// answers of its first `held` pushes until the caller stops sending (`stopSending`: the
/// delivery that sent them was cancelled), or `patience` has passed: a gateway whose answers are
/// still on the way when a run's delivery is cut short. Records every push handed to it.
public final class HoldingPushSender: PushSender {
    private struct State {
        var sent: [PushNotification] = []
        var toHold: Int
        var holding = false
        var holdingWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let patience: Duration

    public init(held: Int, patience: Duration = .seconds(20)) {
        self.state = Mutex(State(toHold: held))
        self.patience = patience
    }

    /// Every push handed over, in order.
    public var sent: [PushNotification] { state.withLock { $0.sent } }

    /// Returns once a push whose answer is held has been handed over.
    public func waitUntilHolding() async {
        await withCheckedContinuation { continuation in
            let holding = state.withLock { state in
                if !state.holding { state.holdingWaiters.append(continuation) }
                return state.holding
            }
            if holding { continuation.resume() }
        }
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        let (holds, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.sent += batch
            guard state.toHold > 0 else { return (false, []) }
            state.toHold = max(0, state.toHold - batch.count)
            state.holding = true
            defer { state.holdingWaiters = [] }
            return (true, state.holdingWaiters)
        }
        for waiter in waiters { waiter.resume() }
        let patience = self.patience
        return PushOutcomes(grouped: { yieldAll in
            if holds {
                // The sending task is cancelled when the caller stops sending.
                let deadline = ContinuousClock.now + patience
                while !Task.isCancelled, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
            }
            yieldAll(batch.enumerated().map { ($0.offset, .delivered(messageID: $0.element.messageID)) })
        })
    }
}
