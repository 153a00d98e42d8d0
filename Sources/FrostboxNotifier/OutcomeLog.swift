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
/// A sender keeps that bounded with `reserve(_:bound:)`: a push counts from the moment it is
/// handed out until its outcome is durable, and no more are handed out while `bound` count
/// so — answered or not, whatever the database does meanwhile. A write refused because the
/// database is unavailable (`StorageUnavailableError`: a failover, a restart) is tried again
/// after a pause, its outcomes kept, for `outageWindow` at most; only then does the log fail
/// (`UnrecordedOutcomes`). `finish()` waits for every added outcome to be durable and reports
/// the first failed write.
final class OutcomeLog<Outcome: Sendable>: Sendable {
    private struct State {
        var gathered: [Outcome] = []
        var writing = false
        var failure: (any Error)?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Outcomes added and not yet durable (gathered, or in the write under way).
        var unwritten = 0
        /// Pushes reserved (handed out) whose outcome has not been added yet.
        var reserved = 0
        /// Senders waiting for room: `count` more may count at most `bound` (see `fits`).
        var roomWaiters: [(count: Int, bound: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Pushes handed out whose outcome is not durable yet.
        var outstanding: Int { reserved + unwritten }

        /// Whether `count` more fit under `bound` (any number does when nothing is outstanding,
        /// so a chunk larger than the bound still goes, alone).
        func fits(_ count: Int, bound: Int) -> Bool { outstanding == 0 || outstanding + count <= max(1, bound) }

        /// Takes the room waiters that may go on now (all of them once the log has failed),
        /// their pushes counted as reserved.
        mutating func admitted() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [(count: Int, bound: Int, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in roomWaiters {
                if failure != nil || fits(waiter.count, bound: waiter.bound) {
                    reserved += waiter.count
                    ready.append(waiter.continuation)
                } else {
                    waiting.append(waiter)
                }
            }
            roomWaiters = waiting
            return ready
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

    /// Adds an outcome; starts a write when none is under way. `reserved`: the outcome of a
    /// push counted by `reserve` (it goes on counting until it is durable).
    func add(_ outcome: Outcome, reserved: Bool = false) {
        let start = state.withLock { state -> Bool in
            state.gathered.append(outcome)
            state.unwritten += 1
            if reserved { state.reserved = max(0, state.reserved - 1) }
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Outcomes added and not yet durable.
    var unwritten: Int { state.withLock { $0.unwritten } }

    /// Pushes handed out whose outcome is not durable yet.
    var outstanding: Int { state.withLock { $0.outstanding } }

    /// Waits until `count` more pushes fit under `bound` outstanding (handed out, outcome not
    /// durable), then counts them as handed out; throws the log's failure, if any (then
    /// nothing more should be sent: its outcomes could not be recorded). A sender that takes
    /// fewer than `count` gives the rest back with `release`.
    func reserve(_ count: Int, bound: Int) async throws {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.failure == nil else { return true }
                guard !state.fits(count, bound: bound) else {
                    state.reserved += count
                    return true
                }
                state.roomWaiters.append((count, bound, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Gives back `count` reserved pushes whose outcome does not come through `add` (not sent
    /// after all, or recorded by the sender itself).
    func release(_ count: Int) {
        guard count > 0 else { return }
        let ready = state.withLock { state in
            state.reserved = max(0, state.reserved - count)
            return state.admitted()
        }
        for waiter in ready { waiter.resume() }
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
            if state.failure == nil { state.failure = UnrecordedOutcomes(count: count, error: error) }
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

    /// Adds an outbox entry's outcome (`reserved`: see `add(_:reserved:)`).
    func add(_ id: Int64, _ outcome: OutboxOutcome, reserved: Bool = false) {
        add((id: id, outcome: outcome), reserved: reserved)
    }
}

/// Outcomes of pushes already sent that could not be recorded: the database refused them past
/// the run's wait (`NotifierSettings.endRetryWindow`), or failed otherwise. Their entries stay
/// pending and the next run sends them again (no more than the in-flight bound: see
/// `OutcomeLog`). It ends the run, or this worker's part of a shared one, `failed`: a part
/// resumed after it could end `completed` with outcomes unstored.
struct UnrecordedOutcomes: Error, CustomStringConvertible {
    /// Outcomes in the write that failed first.
    let count: Int
    let error: any Error

    var description: String {
        "could not record the outcomes of \(count) pushes already sent (their alerts stay pending: the next run sends them again): \(error)"
    }
}
