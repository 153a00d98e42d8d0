import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox serve`: runs the HTTP API.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP service.")

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind (0 picks a free one).") var port = 8080
    @Option(help: "SQLite database file (env FROSTBOX_DB; default ./frostbox.sqlite).") var db: String?

    func run() async throws {
        var config = FrostboxConfig()
        config.host = host
        config.port = port
        config.databasePath = db ?? ProcessInfo.processInfo.environment["FROSTBOX_DB"] ?? config.databasePath
        var logger = Logger(label: "frostbox")
        logger.logLevel = config.logLevel
        try await FrostboxApplication.serve(config: config, logger: logger)
    }
}
