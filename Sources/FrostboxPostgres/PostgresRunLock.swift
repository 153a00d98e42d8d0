import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// A cluster-wide lock for notify runs: a PostgreSQL session advisory lock, taken on a
/// connection of its own that stays open while the run goes. When the instance dies, the
/// server drops the connection and with it the lock, so a run is never blocked by a dead one.
public final class PostgresRunLock: Sendable {
    let settings: PostgresConnectionSettings
    let key: Int64
    let logger: Logger
    private let held = Mutex<PostgresConnection?>(nil)

    /// The key of the notify-run lock ("FbNotify" in ASCII).
    public static let notifyRunKey: Int64 = 0x4662_4e6f_7469_6679

    public init(settings: PostgresConnectionSettings, key: Int64 = PostgresRunLock.notifyRunKey, logger: Logger) {
        self.settings = settings
        self.key = key
        self.logger = logger
    }

    /// Takes the lock when no session holds it; false otherwise, or when the server cannot be
    /// reached (logged): a run that cannot prove it is alone does not start.
    public func tryLock() async -> Bool {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try Self.configuration(settings), id: 1, logger: logger)
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
            var taken = false
            for try await value in rows.decode(Bool.self) { taken = value }
            guard taken else {
                try? await connection.close()
                return false
            }
            let previous = held.withLock { held in
                defer { held = connection }
                return held
            }
            try? await previous?.close()
            return true
        } catch {
            logger.error("could not take the notify-run lock on PostgreSQL", metadata: ["error": "\(PostgresStoreError.wrapping(error, doing: "lock"))"])
            return false
        }
    }

    /// Releases the lock (closing its connection releases it too).
    public func unlock() async {
        guard let connection = held.withLock({ held in defer { held = nil }; return held }) else { return }
        _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
        try? await connection.close()
    }

    /// A single connection's configuration (10 s to connect).
    static func configuration(_ settings: PostgresConnectionSettings) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch settings.tls {
        case .disable:
            tls = .disable
        case .prefer:
            tls = .prefer(try NIOSSLContext(configuration: PostgresDatabase.tlsConfiguration(settings)))
        case .require, .verifyFull:
            tls = .require(try NIOSSLContext(configuration: PostgresDatabase.tlsConfiguration(settings)))
        }
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
