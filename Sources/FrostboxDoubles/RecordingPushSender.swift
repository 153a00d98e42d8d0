import FrostboxCore
import Synchronization

/// A `PushSender` that records every notification and answers from a script: per token, a
/// queue of outcomes used one per send, then `.delivered` with the notification's message id.
/// The pushes of a batch are sent concurrently; `batchSizes` records each batch handed over.
///
/// With `holdUntilInFlight: n`, each send waits until `n` sends are in flight at once (or
/// `release()` is called), so a test can see whether a caller keeps more than `n` going.
public final class RecordingPushSender: PushSender {
    struct State: Sendable {
        var sent: [PushNotification] = []
        var batchSizes: [Int] = []
        var scripts: [DeviceToken: [PushOutcome]] = [:]
        var inFlight = 0
        var maximumInFlight = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let state = Mutex(State())
    private let holdUntilInFlight: Int?

    public init(holdUntilInFlight: Int? = nil) {
        self.holdUntilInFlight = holdUntilInFlight
    }

    /// Answers the next sends to `token` with `outcomes`, in order.
    public func script(_ token: DeviceToken, _ outcomes: [PushOutcome]) {
        state.withLock { $0.scripts[token, default: []].append(contentsOf: outcomes) }
    }

    /// Every notification sent, in the order the sends started.
    public var sent: [PushNotification] { state.withLock { $0.sent } }

    /// The size of each batch handed over, in order.
    public var batchSizes: [Int] { state.withLock { $0.batchSizes } }

    /// The most sends that were in flight at the same time.
    public var maximumInFlight: Int { state.withLock { $0.maximumInFlight } }

    /// Lets every held send (and all later ones) through.
    public func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        state.withLock { $0.batchSizes.append(batch.count) }
        return PushOutcomes.concurrently(batch) { await self.sendOne($0) }
    }

    private func sendOne(_ notification: PushNotification) async -> PushOutcome {
        let outcome = state.withLock { state -> PushOutcome in
            state.sent.append(notification)
            state.inFlight += 1
            state.maximumInFlight = max(state.maximumInFlight, state.inFlight)
            if var queue = state.scripts[notification.token], !queue.isEmpty {
                let next = queue.removeFirst()
                state.scripts[notification.token] = queue
                return next
            }
            return .delivered(messageID: notification.messageID)
        }
        if let holdUntilInFlight {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    if state.released { return [continuation] }
                    state.waiting.append(continuation)
                    guard state.inFlight >= holdUntilInFlight else { return [] }
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for waiter in ready { waiter.resume() }
            }
        }
        state.withLock { $0.inFlight -= 1 }
        return outcome
    }
}
