import FrostboxCore
import Logging
import PostgresNIO

extension PostgresDatabase {
    /// Readiness (`/ready`): every migration applied and the server taking writes, answered
    /// within `connectionWait`. Asks the server, on a pooled connection leased within half the
    /// wait, whether it would refuse writes (read-only setting, recovery: a standby) and records
    /// the answer in `health`. When no pooled connection comes free in time, a connection of its
    /// own, given the other half, asks the same and finds out why (refused, starting up, out of
    /// slots); no answer in time is not ready. A pool with no connection in use that gave none
    /// has none to give (the server was out of reach, or the pool waits out its reconnect
    /// backoff until `PoolWatch` replaces it): not ready, whatever that connection found; a pool
    /// busy with statements is ready when the server is. A disk-full failure of the last writes
    /// holds a while: only a write can tell it is over.
    public func isReady() async -> Bool {
        let half = connectionWait / 2
        do {
            let logger = self.logger
            let (readOnly, migrated) = try await withConnection(wait: half, deadline: half) { connection in
                let readOnly = try await Self.refusesWrites(connection, logger: logger)
                let applied = try await PostgresMigrations.applied(connection, logger: logger)
                return (readOnly, PostgresMigrations.all.allSatisfy { applied.contains($0.name) })
            }
            health.record(readOnly ? .failed(Self.refusesWrites) : .writable)
            guard migrated else { return false }
        } catch let error as StorageUnavailableError where error.reason == .noConnection {
            let busy = poolWatch.isBusy
            switch await directProbe(within: half, checkingWrites: true) {
            case .connected:
                guard busy else { return false }
                health.record(.writable)
            case .readOnly: health.record(.failed(Self.refusesWrites))
            case .failed(let unavailable?): health.record(.failed(unavailable))
            // A server that does not answer in time is not ready, whatever writes said before.
            case .failed(nil), .noAnswer: return false
            }
        } catch {
            return false
        }
        return health.isAvailable
    }

    /// What a read-only server answers a write (SQLSTATE 25006), as the probe reports it.
    static let refusesWrites = StorageUnavailableError(
        .readOnly, code: "25006", message: "the server accepts no writes (transaction_read_only is on, or it is a standby)")

    /// Whether the server on `connection` would refuse a write: read-only by setting, or in
    /// recovery (a standby, or a primary being demoted).
    static func refusesWrites(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT current_setting('transaction_read_only') = 'on' OR pg_is_in_recovery()", logger: logger)
        var readOnly = false
        for try await value in rows.decode(Bool.self) { readOnly = value }
        return readOnly
    }
}
