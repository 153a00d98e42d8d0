import FrostboxCore
import Logging
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// How the adapters run statements: each on a connection leased for no longer than the
/// statement (its rows read while leased), the wait for the lease bounded by `connectionWait`,
/// the outcome recorded in `health`, and database trouble thrown as `StorageUnavailableError`.
///
/// Why not `PostgresClient.query`: in postgres-nio 1.33.2 it hands its lease back when the row
/// stream finishes, and a stream whose error arrived before the stream was handed to the
/// caller (a statement failing right after its row description, e.g. an `INSERT … RETURNING`
/// refused by a read-only server, when the reply outruns the caller's thread) never finishes
/// that way: the lease is lost and the connection stays idle in PostgreSQL, never used again.
/// A leased connection's own `query` does not hold the lease, and `withConnection` returns it
/// on every path.
extension PostgresDatabase {
    /// Runs one statement and reads its rows, within `statementDeadline`. `writes`: it changes
    /// data, and runs between `BEGIN` and `COMMIT` (a success then proves the database writable
    /// again).
    ///
    /// Why a write is not left to its implicit transaction: that one commits at the protocol's
    /// Sync, after the statement's rows and CommandComplete were sent, and postgres-nio answers
    /// the caller from those, before the server's ReadyForQuery says the commit happened. A
    /// commit waiting for the synchronous standby that the server then ends (a primary cut off
    /// from the others demotes itself and terminates its sessions: `57P01`, "already committed
    /// locally") was acknowledged and lost when the new primary took over: 5–9 subscriptions in
    /// each partition run of `Tests/Failover`. An explicit `COMMIT` answers only once the commit
    /// and its wait for the standby are done, and such an ending fails it.
    @discardableResult
    func query(_ query: PostgresQuery, writes: Bool = false) async throws -> PostgresRows {
        try await withConnection(writes: writes, deadline: statementDeadline) { connection in
            guard writes else { return try await Self.rows(of: query, on: connection, logger: self.logger) }
            do {
                return try await connection.withTransaction(logger: self.logger) { connection in
                    try await Self.rows(of: query, on: connection, logger: self.logger)
                }
            } catch let error as PostgresTransactionError {
                // Never handed back mid-transaction; the statement's own error as `query` has always thrown it.
                if error.closureError == nil || error.rollbackError != nil { try? await connection.close() }
                throw error.closureError ?? error.commitError ?? error.beginError ?? error
            }
        }
    }

    private static func rows(of query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> PostgresRows {
        var rows: [PostgresRow] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
        return PostgresRows(rows: rows)
    }

    /// Runs `body` in one transaction: committed before this returns, rolled back when it throws.
    /// The body's own error is rethrown as it was (a `StoreLimitError` stays one). A connection
    /// whose transaction could not be ended cleanly is closed, never handed back mid-transaction.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection(writes: true) { connection in
            do {
                return try await connection.withTransaction(logger: self.logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                if error.closureError == nil || error.rollbackError != nil { try? await connection.close() }
                if let closureError = error.closureError as? PSQLError { throw Self.failure(closureError, doing: "run a transaction") }
                if let closureError = error.closureError { throw closureError }
                throw Self.failure(error.beginError ?? error.commitError ?? error, doing: "run a transaction")
            }
        }
    }

    /// Runs `body` on a pooled connection, waiting at most `wait` (`connectionWait` when nil) for one.
    /// `deadline`: the longest the body may hold the connection (see `leased`); nil: no limit.
    func withConnection<T: Sendable>(
        writes: Bool = false, wait: Duration? = nil, deadline: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            let value: T
            let pool = client
            do {
                value = try await leased(from: pool, wait: wait ?? connectionWait, deadline: deadline, body)
            } catch let error as ConnectionPoolError where error == .poolShutdown && client !== pool {
                // The pool was replaced while the statement waited for it (`PoolWatch`): the new one serves it.
                value = try await leased(from: client, wait: wait ?? connectionWait, deadline: deadline, body)
            }
            health.record(.succeeded(wrote: writes))
            return value
        } catch {
            guard let unavailable = PostgresUnavailability.classify(error) else { throw error }
            guard unavailable.reason == .noConnection else {
                health.record(.failed(unavailable))
                throw unavailable
            }
            poolWatch.foundNoConnection()
            // A pool busy with other work says nothing about the server (the probe of `/ready`
            // finds out); one with no connection in use that handed out none in the whole wait
            // has none to give: the server is out of reach, and `/ready` says so at once. (Not
            // over a condition known already: its SQLSTATE says more, and the log stays quiet.)
            if !poolWatch.isBusy, health.isAvailable {
                health.record(
                    .failed(
                        StorageUnavailableError(
                            .noConnection, message: "the pool has no connection to the server and opened none within \(wait ?? connectionWait)")))
            }
            throw unavailable
        }
    }

    /// `body` on a leased connection: the wait for the lease bounded by `wait`, and
    /// with a `deadline`, the statement's time on it too (`wait + deadline` from the start) —
    /// past it the connection is closed, which fails the statement (a server that died without
    /// closing its sockets never answers). A connection that closes under the statement answers
    /// it at once as unavailable (postgres-nio would leave it waiting).
    /// The caller never waits for the pool past these bounds: the lease and the statement run in
    /// a task of their own, and a lease granted after the caller gave up is handed straight back.
    private func leased<T: Sendable>(
        from client: PostgresClient, wait: Duration, deadline: Duration?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let lease = Lease()
        let race = FirstOutcome<T>()
        let watch = poolWatch
        let work = Task {
            do {
                let value = try await client.withConnection { connection in
                    guard lease.hold(connection) else { throw CancellationError() }
                    watch.granted()
                    defer {
                        lease.release()
                        if lease.uncount() { watch.returned() }
                    }
                    return try await body(connection)
                }
                race.settle(.success(value))
            } catch {
                race.settle(.failure(error))
            }
        }
        let logger = self.logger
        let timer = Task {
            let clock = ContinuousClock()
            let start = clock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.watchInterval)
                guard !Task.isCancelled else { return }
                guard let connection = lease.connection else {
                    guard clock.now - start >= wait, lease.abandonIfWaiting() else { continue }
                    race.settle(.failure(StorageUnavailableError(.noConnection, message: "no database connection came free within \(wait)")))
                    work.cancel()
                    return
                }
                // postgres-nio drops a statement written to a channel that has closed (no
                // promise on the write), and its caller would wait forever: answer it now.
                if connection.isClosed {
                    race.settle(.failure(StorageUnavailableError(.down, message: "the connection to the server closed under the statement")))
                    // Its task may never end (see above): the pool's watch stops counting the lease.
                    if lease.uncount() { watch.returned() }
                    return
                }
                guard let deadline, clock.now - start >= wait + deadline else { continue }
                // The caller is answered now, whether or not the closed connection fails the statement.
                race.settle(.failure(StorageUnavailableError(.down, message: "the server did not answer a statement within \(deadline)")))
                logger.debug("closing a connection whose statement outlived its deadline", metadata: ["deadline": "\(deadline)"])
                try? await connection.close()
                if lease.uncount() { watch.returned() }
                return
            }
        }
        defer { timer.cancel() }
        do {
            return try await race.value()
        } catch is CancellationError {
            work.cancel()
            throw CancellationError()
        }
    }

    /// How often a statement's watch looks at its lease: the wait for it, the connection under
    /// it (closed?), the deadline.
    static let watchInterval = Duration.milliseconds(100)

    /// A failure as the adapter reports it: database trouble as `StorageUnavailableError`,
    /// anything else as a `PostgresStoreError` saying what was being done.
    static func failure(_ error: any Error, doing what: String) -> any Error {
        PostgresUnavailability.classify(error) ?? PostgresStoreError.wrapping(error, doing: what)
    }
}

/// The connection a statement got, while it runs on it (set by the leasing task, read by the timer).
private final class Lease: Sendable {
    private enum State { case waiting, held(PostgresConnection), released, abandoned }
    private let state = Mutex(State.waiting)

    var connection: PostgresConnection? { state.withLock { if case .held(let connection) = $0 { connection } else { nil } } }

    /// Takes `connection` for the statement; false when the caller gave up waiting already.
    func hold(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .held(connection)
            return true
        }
    }

    func release() { state.withLock { $0 = .released } }

    /// True the first time only: the lease stops counting as held in the pool's watch, when
    /// its statement ends or when the statement is given up with its connection.
    func uncount() -> Bool { counted.exchange(false, ordering: .relaxed) }
    private let counted = Atomic<Bool>(true)

    /// Gives up a lease not granted yet; false when the statement has its connection.
    func abandonIfWaiting() -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .abandoned
            return true
        }
    }
}
