import FrostboxCore
import FrostboxHTTP
import FrostboxPlaceImport
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Synchronization
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

extension FrostboxApplication {
    /// Runs `frostbox serve`: the HTTP server and every background service in one
    /// `ServiceGroup`. On SIGTERM or SIGINT the services stop in reverse order: first the
    /// server (no new connections, in-flight requests finish), then the background services
    /// (a notify run finishes its current batch), so the outbox is left consistent.
    /// `onListening` is called with the bound port once the server listens.
    public static func serve(config: FrostboxSettings, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let components = try await Components.open(config: config, logger: logger)
        bootstrapMetrics(components.operations.telemetry.factory)
        let group = try await serviceGroup(
            config: config, components: components, logger: logger, signals: [.sigterm, .sigint], onListening: onListening)
        try await runServiceGroup(group, config: config)
        logger.notice("stopped")
    }

    /// Runs `group`; a port already in use becomes a plain configuration error (exit 78 in the
    /// CLI) instead of NIO's `bind(descriptor:ptr:bytes:)` text.
    static func runServiceGroup(_ group: ServiceGroup, config: FrostboxSettings) async throws {
        do {
            try await group.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ConfigurationError(
                key: "server.port", source: "start-up",
                "cannot listen on \(config.host):\(config.port): the address is already in use (is another frostbox running?); choose another with --port or --set server.port=…"
            )
        }
    }

    /// The HTTP server and every background service over `components`, shutting down
    /// gracefully on `signals` (or `ServiceGroup.triggerGracefulShutdown()`).
    public static func serviceGroup(
        config: FrostboxSettings, components: Components, logger: Logger, signals: [UnixSignal],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> ServiceGroup {
        await startUp(config: config, components: components, logger: logger)
        let listening = ListeningGate()
        let app = try await build(config: config, components: components, logger: logger) { port in
            listening.open()
            await onListening(port)
        }
        // The server accepts connections once the database's pool has a connection ready.
        let server = StartsWhenDatabaseWarm(base: app, warmUp: { await components.database.warmUp(logger: logger) })
        let services = backgroundServices(components, config: config, logger: logger, listening: listening) + [server]
        return ServiceGroup(
            configuration: .init(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: NamedService($0)) },
                gracefulShutdownSignals: signals,
                logger: logger))
    }

    /// Start-up work of `serve`, done before the server accepts connections: the place tables
    /// are seeded when empty, from the extract compiled into the binary or `places.seed_path`
    /// (an empty one skips it); never into a places generation.
    static func startUp(config: FrostboxSettings, components: Components, logger: Logger) async {
        // Generations are built by `frostbox import … --build`, never seeded.
        if let seed = config.placesSeed, components.placesInUse.layout == .file {
            await PlaceImport.seedIfEmpty(seed, database: components.placesDatabase, logger: logger)
        }
    }

    /// The notifier and the adapters emit through the global metrics system: point it at the
    /// registry `/metrics` renders. swift-metrics allows one bootstrap per process; later calls
    /// keep the first registry.
    static func bootstrapMetrics(_ factory: any MetricsFactory) {
        let first = metricsBootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        if first { MetricsSystem.bootstrap(factory) }
    }

    private static let metricsBootstrapped = Mutex(false)

    /// The Hummingbird application over `router` with the connection limits of `config`
    /// (`ConnectionLimits`: header and idle timeouts, caps per address and in all), and the
    /// bound address logged (useful with `--port 0`).
    static func makeApplication(
        router: Router<FrostboxRequestContext>, config: FrostboxSettings, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> App {
        let limits = config.connectionLimits
        return Application(
            router: router,
            // Every connection is accepted and the guard decides at once whether to keep it, so a
            // flood from one address never fills the accept backlog for everyone else.
            server: .guardedHTTP1(limits: limits, registry: ConnectionRegistry(limits: limits)),
            // A deep accept queue (the kernel caps it at net.core.somaxconn): under a flood of
            // connections the guard closes at once, a new client's SYN still finds room.
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: "frostbox", backlog: 4_096),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                logger.notice("listening", metadata: ["host": "\(config.host)", "port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
    }
}

/// Opens once the HTTP server listens; `StartsWhenListening` services wait for it.
final class ListeningGate: Sendable {
    private let state: Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>

    init(opened: Bool = false) {
        state = Mutex((opened, []))
    }

    func open() {
        let waiters = state.withLock { state in
            defer { state = (true, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// Runs `base` once the HTTP server listens, so that a port in use stops start-up before
/// `base` (the notifier) is scheduled; on graceful shutdown before that, it ends without
/// starting `base`.
struct StartsWhenListening: Service {
    let base: any Service
    let listening: ListeningGate

    func run() async throws {
        let opened = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await listening.wait()
                return true
            }
            group.addTask {
                try? await gracefulShutdown()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            // Releases the waiting child when shutdown came first.
            if !first { listening.open() }
            await group.waitForAll()
            return first
        }
        guard opened, !Task.isCancelled else { return }
        try await base.run()
    }
}

/// Runs `base` (the HTTP server) once `warmUp` returns: the database's pool, started by its
/// own service, has a connection ready, so the first requests do not wait for one to open.
struct StartsWhenDatabaseWarm: Service {
    let base: any Service
    let warmUp: @Sendable () async -> Void

    func run() async throws {
        await warmUp()
        // Shut down or cancelled meanwhile: the server never starts listening.
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        try await base.run()
    }
}

/// Keeps `serve` from exiting under a notify run started by `POST /admin/notify`: such a run
/// is not part of the scheduled service, so on graceful shutdown this stops it after its
/// current batch, as the scheduled run is stopped, and waits for it (its sends recorded, the
/// rest pending in the outbox, its summary stored) before the services it needs shut down.
struct TriggeredRunDrainService: Service {
    let stopTriggeredRun: @Sendable () async -> Void
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.debug("stopping a manually started notify run, if any, after its current batch")
        await stopTriggeredRun()
    }
}

/// A service under its type name only. ServiceLifecycle logs each service's description, and
/// the default one reflects every stored property, settings with API keys included.
struct NamedService: Service, CustomStringConvertible {
    let base: any Service
    let description: String

    init(_ base: any Service) {
        self.base = base
        // The notifier and the server wait behind a gate; logs should still name them.
        let named = (base as? StartsWhenListening)?.base ?? (base as? StartsWhenDatabaseWarm)?.base ?? base
        description = String(describing: type(of: named)).split(separator: "<").first.map(String.init) ?? "Service"
    }

    func run() async throws {
        try await base.run()
    }
}
