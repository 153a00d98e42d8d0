/// A use case's last write, carried to completion even when the task ending the use case is
/// cancelled: a graceful shutdown cancels a notify run after its current batch, and the run
/// (or this worker's part of a shared run) still deserves its row. This is the one place
/// Frostbox shields a write from cancellation; the stores do not (GRDB's async write refuses
/// to start in a cancelled task, and a postgres-nio query is cancelled with its task).
public enum FinalWrite {
    /// Runs `write` in a task of its own, which the caller's cancellation does not reach, and
    /// waits for it.
    public static func run<T: Sendable>(_ write: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task.detached(operation: write).value
    }
}
