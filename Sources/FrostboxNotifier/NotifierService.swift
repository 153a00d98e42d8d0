import FrostboxCore
import Logging
import ServiceLifecycle

/// Runs the notifier on a schedule inside `frostbox serve`: a first run shortly after start
/// (which also resends whatever a crash left in the outbox), then one every `interval`. Runs
/// never overlap: a run that would start while another is going (a manual trigger, another
/// process) is retried after `busyRetryDelay`. With runs shared by several instances
/// (PostgreSQL), a scheduled run joins the one in progress instead, and while waiting the
/// service looks every `joinPollInterval` for a run to help with. Graceful shutdown stops the
/// loop; a run cut short leaves its entries pending in the outbox for the next start.
public struct NotifierService: Service {
    let notifier: Notifier
    let configuration: NotifierSettings
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger

    public init(
        notifier: Notifier, configuration: NotifierSettings, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.notifier = notifier
        self.configuration = configuration
        self.sleep = sleep
        self.logger = logger
    }

    public func run() async throws {
        logger.info(
            "notifier scheduled",
            metadata: ["first_run_in": "\(configuration.firstRunDelay)", "interval": "\(configuration.interval)"])
        try? await cancelWhenGracefulShutdown {
            try await loop()
        }
    }

    private func loop() async throws {
        try await waitForNextRun(configuration.firstRunDelay)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let result: Notifier.RunResult
            do {
                result = try await notifier.runScheduled(interval: configuration.interval)
            } catch is CancellationError {
                return
            } catch {
                logger.error("notify run could not start", metadata: ["error": "\(error)"])
                try await sleep(configuration.busyRetryDelay)
                continue
            }
            switch result {
            case .completed:
                let elapsed = ContinuousClock.now - started
                try await waitForNextRun(elapsed < configuration.interval ? configuration.interval - elapsed : .zero)
            case .alreadyRunning:
                logger.info("a notify run is already going; trying again later", metadata: ["in": "\(configuration.busyRetryDelay)"])
                try await waitForNextRun(configuration.busyRetryDelay)
            }
        }
    }

    /// Sleeps `duration`; with runs shared by several instances, looks every
    /// `joinPollInterval` for a run in progress to help with meanwhile.
    private func waitForNextRun(_ duration: Duration) async throws {
        guard notifier.sharesRuns else { return try await sleep(duration) }
        var left = duration
        while left > .zero {
            let step = min(left, configuration.joinPollInterval)
            try await sleep(step)
            left -= step
            do {
                _ = try await notifier.joinRunInProgress()
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as StorageUnavailableError {
                // The database adapter logs its unavailability once, not at every look.
                logger.debug("could not look for a shared notify run to join", metadata: ["error": "\(error)"])
            } catch {
                logger.warning("could not look for a shared notify run to join", metadata: ["error": "\(error)"])
            }
        }
    }
}
