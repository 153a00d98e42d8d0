import FrostboxCore
import PostgresNIO

extension PostgresDatabase {
    /// Readiness (`/ready`): every migration applied and the server taking writes. Asks the
    /// server whether it would refuse writes (read-only setting, recovery: a standby) and records
    /// the answer in `health`; when no pooled connection comes free in time, a connection of its
    /// own finds out why (refused, starting up, out of slots) or that the server is fine. A
    /// disk-full failure of the last writes holds a while: only a write can tell it is over.
    public func isReady() async -> Bool {
        do {
            let readOnly =
                try await query("SELECT current_setting('transaction_read_only') = 'on' OR pg_is_in_recovery()")
                .single(Bool.self) ?? false
            health.record(readOnly ? .failed(Self.refusesWrites) : .writable)
            guard try await isMigrated() else { return false }
        } catch let error as StorageUnavailableError where error.reason == .noConnection {
            await probeDirectly()
        } catch {
            return false
        }
        return health.isAvailable
    }

    /// What a read-only server answers a write (SQLSTATE 25006), as the probe reports it.
    static let refusesWrites = StorageUnavailableError(
        .readOnly, code: "25006", message: "the server accepts no writes (transaction_read_only is on, or it is a standby)")

    /// One connection outside the pool, given no longer than twice `connectionWait` to open and
    /// start (a server shutting down can accept a connection and never answer its start-up).
    private func probeDirectly() async {
        switch await directProbe(within: connectionWait * 2) {
        case .connected: health.record(.succeeded(wrote: false))
        case .failed(let unavailable?): health.record(.failed(unavailable))
        case .failed(nil), .noAnswer: break
        }
    }
}
