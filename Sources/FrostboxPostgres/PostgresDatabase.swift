import FrostboxStorageFormats
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The PostgreSQL database of a Frostbox cluster: a `PostgresClient` pool with every migration
/// applied. Several instances may open it at once: migrations run in one transaction under an
/// advisory lock, so they are applied once.
///
/// The pool works while `run()` runs: as a `Service` of the application's `ServiceGroup`
/// (`serve` lists it first, so it stops last, after everything that queries it), or beside a
/// one-shot command's work in `withRunning`. Opening needs no running pool: the start-up check
/// and the migrations use one connection of their own. `warmUp()` waits for the running pool's
/// first connection, so the first statements do not spend their connection wait on it.
///
/// Every write is one transaction committed before its method returns; PostgreSQL's defaults
/// (`synchronous_commit = on`, `fsync = on`) make that commit durable.
public final class PostgresDatabase: Service, Sendable {
    /// The pool in use; adapters run their statements through `query`, `withConnection` and
    /// `transaction`. Replaced when it waits out its reconnect backoff while the server takes
    /// connections again (`PoolWatch`).
    var client: PostgresClient { pool.withLock { $0 } }
    let pool: Mutex<PostgresClient>
    /// How a replacement pool is made: the pool's configuration and its quiet logger.
    let poolConfiguration: PostgresClient.Configuration
    let poolLogger: Logger
    /// Whether the pool has handed out no connection for a while (see `nextReplacement`).
    let poolWatch = PoolWatch()
    /// Set once the first pool's `run()` is being called: `warmUp` waits for it, so that its
    /// lease is not asked of a pool not yet running (postgres-nio logs a warning for that).
    let poolStarted = Atomic<Bool>(false)
    public let settings: PostgresConnectionSettings
    /// Longest wait for a pooled connection before a statement gives up with
    /// `StorageUnavailableError` (`.noConnection`): an outage answers fast, not at the request timeout.
    public let connectionWait: Duration
    /// Longest a single statement (`query`) may take on its connection before the connection is
    /// closed and the statement fails as unavailable: a server gone without closing its
    /// sockets would otherwise hold it until the request's own deadline.
    public let statementDeadline: Duration
    let logger: Logger
    let health: StorageHealthMonitor

    /// Checks the server answers (a wrong address, user or database fails at once with the
    /// server's reason, where the pool would keep retrying) and migrates, over one connection of
    /// its own; the pool starts with `run()`.
    public init(
        settings: PostgresConnectionSettings, maximumConnections: Int = 20, connectionWait: Duration = .seconds(1),
        statementDeadline: Duration = .seconds(10), logger: Logger = Logger(label: "frostbox.postgres")
    ) async throws {
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: try Self.tls(settings))
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(10)
        // Quiet pool: it logs each failed attempt to connect at info level, several a second
        // through an outage; the database's state changes are logged once each (`health`).
        var background = logger
        if logger.logLevel > .debug { background.logLevel = max(logger.logLevel, .warning) }
        self.pool = Mutex(PostgresClient(configuration: configuration, backgroundLogger: background))
        self.poolConfiguration = configuration
        self.poolLogger = background
        self.settings = settings
        self.connectionWait = connectionWait
        self.statementDeadline = statementDeadline
        self.logger = logger
        self.health = StorageHealthMonitor(
            lines: .init(
                unavailable: "PostgreSQL unavailable", stillUnavailable: "PostgreSQL still unavailable", availableAgain: "PostgreSQL available again",
                codeKey: "sqlstate"),
            logger: logger)
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try Self.connectionConfiguration(settings), id: 0, logger: logger)
            do {
                try await PostgresMigrations.migrate(connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        } catch {
            throw PostgresStoreError.wrapping(error, doing: "open \(settings.redacted)")
        }
        logger.debug("opened PostgreSQL database", metadata: ["url": "\(settings.redacted)"])
    }

    /// Runs the connection pool until the task is cancelled or, in a `ServiceGroup`, until the
    /// group shuts down gracefully; statements wait for a connection while it does not run.
    /// Beside it, a watch replaces a pool that hands out no connection while the server takes
    /// them again (postgres-nio's reconnect backoff grows to a minute through a long outage and
    /// is not configurable): the old pool is stopped, a fresh one runs. Call it once.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            var retire = start(client, in: &group)
            // Until cancelled or shutting down: a replacement runs before it is installed, and the
            // pool it replaces stops after, so no statement finds a pool that is not running.
            while let fresh = await nextReplacement() {
                let retireFresh = start(fresh, in: &group)
                pool.withLock { $0 = fresh }
                poolWatch.replaced()
                logger.notice(
                    "replaced the PostgreSQL connection pool: it handed out no connection while the server accepted one (its reconnect backoff after an outage)"
                )
                retire()
                retire = retireFresh
            }
        }
    }

    /// Runs `client` in `group` until it ends by itself (cancellation, graceful shutdown) or the
    /// returned function retires it.
    private func start(_ client: PostgresClient, in group: inout DiscardingTaskGroup) -> @Sendable () -> Void {
        let (retirement, retired) = AsyncStream<Void>.makeStream()
        group.addTask {
            await withTaskGroup(of: Void.self) { lifetime in
                lifetime.addTask {
                    self.poolStarted.store(true, ordering: .releasing)
                    await client.run()
                }
                lifetime.addTask { for await _ in retirement {} }
                _ = await lifetime.next()
                lifetime.cancelAll()
            }
        }
        return { retired.finish() }
    }

    /// Waits, at most `wait`, until the running pool hands out a working connection: `serve`
    /// accepts requests and a command starts its work only then, so the first statements find a
    /// connection open instead of spending their `connectionWait` on opening one (on a loaded
    /// host that takes longer than the wait). Throws `StorageUnavailableError` when none came.
    public func warmUp(within wait: Duration = .seconds(10)) async throws {
        for _ in 0..<100 where !poolStarted.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(10))
        try await withConnection(wait: wait, deadline: statementDeadline) { connection in
            for try await _ in try await connection.query("SELECT 1", logger: self.logger) {}
        }
    }

    /// Runs `body` with the pool running beside it (warmed up first), and stops the pool when
    /// `body` returns or throws, waiting for it to end: how a one-shot command (`notify --once`,
    /// `runs`, `forecast`) uses the database.
    public func withRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            defer { group.cancelAll() }
            try await warmUp()
            return try await body()
        }
    }

    /// Whether the pool's connections to the server are encrypted (TLS), as the server sees them.
    public func connectionIsEncrypted() async throws -> Bool {
        try await query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").single(Bool.self) ?? false
    }

    /// The names of every migration this version knows, in order.
    public static var migrationNames: [String] { PostgresMigrations.all.map(\.name) }

    /// Whether every known migration has been applied (for readiness checks).
    public func isMigrated() async throws -> Bool {
        let applied = try await withConnection(deadline: statementDeadline) { try await PostgresMigrations.applied($0, logger: self.logger) }
        return PostgresMigrations.all.allSatisfy { applied.contains($0.name) }
    }

    static func tls(_ settings: PostgresConnectionSettings) throws -> PostgresClient.Configuration.TLS {
        switch settings.tls {
        case .disable:
            return .disable
        case .prefer, .require:
            let tls = tlsConfiguration(settings)
            return settings.tls == .prefer ? .prefer(tls) : .require(tls)
        case .verifyFull:
            return .require(tlsConfiguration(settings))
        }
    }

    /// A single connection's configuration (10 s to connect), for the start-up probe.
    static func connectionConfiguration(_ settings: PostgresConnectionSettings) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch settings.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration(settings)))
        case .require, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration(settings)))
        }
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// TLS for `settings`: no certificate check for prefer and require (encryption only, as
    /// libpq does), a full check for verify-full against `sslrootcert` or the system's roots.
    static func tlsConfiguration(_ settings: PostgresConnectionSettings) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if settings.tls == .verifyFull {
            if let path = settings.rootCertificatePath { tls.trustRoots = .file(path) }
        } else {
            tls.certificateVerification = .none
        }
        return tls
    }
}

/// A failure of the PostgreSQL store, with what it was doing. Wraps the driver's error, whose
/// text can hold the query but never bound values (tokens are bound, never spliced).
public struct PostgresStoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func wrapping(_ error: any Error, doing what: String) -> PostgresStoreError {
        if let error = error as? PostgresStoreError { return error }
        // Not the server's detail: it can quote row values (device tokens).
        return PostgresStoreError("could not \(what): \(PostgresUnavailability.describe(error))")
    }
}
