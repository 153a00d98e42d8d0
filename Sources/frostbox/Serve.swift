import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox serve`: runs the HTTP API and the background services until SIGTERM/SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP service.",
        discussion: "Configuration: defaults < YAML file < FROSTBOX_… environment < these options. See data/frostbox.example.yaml.")

    @Option(help: "YAML configuration file (env FROSTBOX_CONFIG).") var config: String?
    @Option(help: "Address to bind (server.host).") var host: String?
    @Option(help: "Port to bind, 0 picks a free one (server.port).") var port: Int?
    @Option(help: "SQLite database file (database.path; env FROSTBOX_DB).") var db: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Set any configuration key.", valueName: "key=value")) var settings: [String] = []

    func run() async throws {
        var logger = Logger(label: "frostbox")
        let loaded: FrostboxConfig
        do {
            let overrides = try ConfigLoader.overrides(
                named: ["server.host": host, "server.port": port.map(String.init), "database.path": db], settings: settings)
            loaded = try await ConfigLoader.load(.init(configPath: config, overrides: overrides), logger: logger)
        } catch {
            FileHandle.standardError.write(Data("frostbox: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        logger.logLevel = loaded.logLevel
        try await FrostboxApplication.serve(config: loaded, logger: logger)
    }
}
