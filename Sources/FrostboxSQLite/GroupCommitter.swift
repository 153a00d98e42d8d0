import GRDB
import Synchronization

/// Coalesces concurrent writes into shared transactions so that each commit (and its fsync)
/// serves many acknowledged requests. Each job runs in its own savepoint, so one failing job
/// rolls back alone; every job's caller resumes only after the shared commit is durable.
final class GroupCommitter: Sendable {
    private struct Job: Sendable {
        /// Runs the job inside the open transaction and returns how to resume its caller, and
        /// the job's error if it failed.
        let run: @Sendable (Database) -> (resume: @Sendable () -> Void, error: (any Error)?)
        /// Resumes the caller with a failure of the whole transaction.
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())
    /// Upper bound on jobs per transaction, so one commit never holds the writer too long.
    private let maximumBatch = 1024

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { db in
                    var result: Result<T, any Error> = .failure(CancellationError())
                    do {
                        try db.inSavepoint {
                            result = .success(try body(db))
                            return .commit
                        }
                    } catch {
                        result = .failure(error)
                    }
                    let outcome = result
                    if case .failure(let error) = outcome { return ({ continuation.resume(with: outcome) }, error) }
                    return ({ continuation.resume(with: outcome) }, nil)
                },
                fail: { error in continuation.resume(throwing: error) }
            )
            let startDrain = state.withLock { state -> Bool in
                state.pending.append(job)
                if state.draining { return false }
                state.draining = true
                return true
            }
            if startDrain {
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Job] in
                let count = min(state.pending.count, maximumBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                if batch.isEmpty { state.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            let firstFailure = Mutex<(any Error)?>(nil)
            do {
                let resumes = try await pool.write { db in
                    batch.map { job in
                        let (resume, error) = job.run(db)
                        if let error { firstFailure.withLock { $0 = $0 ?? error } }
                        return resume
                    }
                }
                for resume in resumes { resume() }
            } catch {
                // SQLite rolls the whole transaction back on some errors of one statement
                // (SQLITE_FULL, SQLITE_IOERR): the commit then fails as "aborted", and the cause
                // every caller should hear is that statement's error.
                let aborted = (error as? DatabaseError)?.resultCode == .SQLITE_ABORT
                let cause = aborted ? firstFailure.withLock { $0 } ?? error : error
                for job in batch { job.fail(cause) }
            }
        }
    }
}
