import FrostboxCore
import Synchronization

/// Records outcomes in grouped commits while sending goes on: outcomes are added as
/// they come in; whenever no write is under way, everything gathered so far goes to the store
/// in one durable write. The group grows with the send rate (one write in flight at a time),
/// so a fast sender pays one commit per thousands of outcomes and a slow one still has each
/// outcome on disk within one commit's time.
///
/// An outcome not yet written when the process dies leaves its entry pending: the next run
/// sends it again with the same message id and bytes (a delivery), or the device stays
/// pending (a verification push), so a kill resends only what was in flight or unwritten.
/// A sender keeps that bounded with `waitForRoom(bound:)`: it hands out no more while
/// `bound` outcomes are unwritten. A write refused because the database is unavailable
/// (`StorageUnavailableError`: a failover, a restart) is tried again after a pause, its
/// outcomes kept, for `outageWindow` at most; only then does the log fail. `finish()` waits
/// for every added outcome to be durable and reports the first failed write.
final class OutcomeLog<Outcome: Sendable>: Sendable {
    private struct State {
        var gathered: [Outcome] = []
        var writing = false
        var failure: (any Error)?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Outcomes added and not yet durable (gathered, or in the write under way).
        var unwritten = 0
        /// Senders waiting for fewer than `bound` unwritten outcomes.
        var roomWaiters: [(bound: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the room waiters that may go on now (all of them once the log has failed).
        mutating func admitted() -> [CheckedContinuation<Void, Never>] {
            let ready = roomWaiters.filter { failure != nil || unwritten < $0.bound }
            roomWaiters.removeAll { failure != nil || unwritten < $0.bound }
            return ready.map(\.continuation)
        }
    }

    /// Writes one group durably.
    private let write: @Sendable ([Outcome]) async throws -> Void
    /// Most outcomes in one write (bounds a transaction's length and memory).
    private let maximumGroup: Int
    /// How long writes refused by an unavailable database are tried again.
    private let outageWindow: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let state = Mutex(State())

    init(
        maximumGroup: Int = 20_000, outageWindow: Duration = .zero,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        write: @escaping @Sendable ([Outcome]) async throws -> Void
    ) {
        self.write = write
        self.maximumGroup = max(1, maximumGroup)
        self.outageWindow = outageWindow
        self.sleep = sleep
    }

    /// Adds an outcome; starts a write when none is under way.
    func add(_ outcome: Outcome) {
        let start = state.withLock { state -> Bool in
            state.gathered.append(outcome)
            state.unwritten += 1
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Outcomes added and not yet durable.
    var unwritten: Int { state.withLock { $0.unwritten } }

    /// Waits until fewer than `bound` outcomes are unwritten; throws the log's failure, if
    /// any (then nothing more should be sent: its outcomes could not be recorded).
    func waitForRoom(bound: Int) async throws {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.failure == nil, state.unwritten >= max(1, bound) else { return true }
                state.roomWaiters.append((max(1, bound), continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
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
        var outage = OutageBudget(window: outageWindow)
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
                    try await write(group)
                    outage.reset()
                    let ready = state.withLock { state in
                        state.unwritten -= group.count
                        return state.admitted()
                    }
                    for waiter in ready { waiter.resume() }
                } catch let error as StorageUnavailableError {
                    if let pause = outage.pause() {
                        // Kept, first in line, and written again once the database answers.
                        state.withLock { state in state.gathered.insert(contentsOf: group, at: 0) }
                        try? await sleep(pause)
                    } else {
                        fail(error, dropping: group.count)
                    }
                } catch {
                    fail(error, dropping: group.count)
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

    /// Records a failed write (its outcomes stay unrecorded: their entries stay pending) and
    /// lets every waiting sender go on to see the failure.
    private func fail(_ error: any Error, dropping count: Int) {
        let ready = state.withLock { state in
            if state.failure == nil { state.failure = error }
            state.unwritten -= count
            return state.admitted()
        }
        for waiter in ready { waiter.resume() }
    }
}

extension OutcomeLog where Outcome == (id: Int64, outcome: OutboxOutcome) {
    /// Delivery outcomes, recorded in the outbox.
    convenience init(
        store: any NotifierStore, outageWindow: Duration = .zero,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.init(outageWindow: outageWindow, sleep: sleep) { group in try await store.record(group) }
    }

    /// Adds an outbox entry's outcome.
    func add(_ id: Int64, _ outcome: OutboxOutcome) {
        add((id: id, outcome: outcome))
    }
}
