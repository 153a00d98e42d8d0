import Logging

/// Everything the composition root needs to wire a Frostbox. Defaults are the embedded
/// quick-start setup: a SQLite file in the working directory, bundled places, log-only push.
public struct FrostboxConfig: Sendable {
    /// Address the HTTP server binds to.
    public var host = "127.0.0.1"
    /// Port the HTTP server binds to (0 picks a free one).
    public var port = 8080
    /// The SQLite file.
    public var databasePath = "./frostbox.sqlite"
    /// Most subscriptions one device may hold.
    public var maximumSubscriptionsPerDevice = 50
    /// Log level of the service.
    public var logLevel: Logger.Level = .info

    public init() {}
}
