import FrostboxCore
import Logging

extension NotifyRun {
    /// Stores how a run (or this worker's part of a shared one) ended. While the database is
    /// unavailable (down, read-only) the write is tried again, with growing pauses, for up to
    /// `configuration.endRetryWindow`: a run that failed with its database must not stay
    /// `running` in the table once the database is back. Runs detached, so that a graceful
    /// shutdown still records the end; the window bounds how long that can hold the shutdown.
    func storeEnd<T: Sendable>(_ what: String, logger: Logger, _ write: @escaping @Sendable () async throws -> T) async -> T? {
        let sleep = self.sleep
        let window = configuration.endRetryWindow
        // Shielded from the run's cancellation (a graceful shutdown) in the one place for it.
        let stored = try? await FinalWrite.run { () -> T? in
            let clock = ContinuousClock()
            let deadline = clock.now + window
            var pause = Duration.milliseconds(250)
            while true {
                do {
                    return try await write()
                } catch let error as StorageUnavailableError where clock.now + pause < deadline {
                    logger.debug("cannot store \(what) yet; trying again", metadata: ["error": "\(error)"])
                    try? await sleep(pause)
                    pause = min(pause * 2, .seconds(5))
                } catch {
                    logger.error("could not store \(what)", metadata: ["error": "\(error)"])
                    return nil
                }
            }
        }
        return stored ?? nil
    }
}
