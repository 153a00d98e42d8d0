import FrostboxCore
import FrostboxHTTP
import FrostboxSQLite
import Foundation
import Hummingbird
import Logging

/// The composition root: opens the live adapters and wires them into the HTTP application.
public enum FrostboxApplication {
    /// The router type every Frostbox server runs.
    public typealias App = Application<RouterResponder<FrostboxRequestContext>>

    /// The live parts, opened once and shared by the server and the CLI commands.
    public struct Components: Sendable {
        public let database: FrostboxDatabase
        public let subscriptions: GRDBSubscriptionStore
        public let clock: @Sendable () -> Int64

        public init(config: FrostboxConfig, logger: Logger) throws {
            database = try FrostboxDatabase(path: config.databasePath, logger: logger)
            subscriptions = GRDBSubscriptionStore(
                database: database, maximumSubscriptionsPerDevice: config.maximumSubscriptionsPerDevice)
            clock = { Int64(Date().timeIntervalSince1970) }
        }
    }

    /// The API over the given components.
    public static func makeAPI(_ components: Components) -> FrostboxAPI {
        let database = components.database
        return FrostboxAPI(groups: [
            HealthRoutes(ready: { (try? await database.isMigrated()) ?? false }).add(to:),
            DeviceRoutes(store: components.subscriptions, now: components.clock).add(to:),
        ])
    }

    /// Builds the HTTP application for `config`.
    public static func build(config: FrostboxConfig, logger: Logger) async throws -> App {
        let components = try Components(config: config, logger: logger)
        let router = makeAPI(components).makeRouter()
        return Application(
            router: router,
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: "frostbox"),
            logger: logger)
    }
}
