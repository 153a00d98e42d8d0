import ArgumentParser
import Foundation
import FrostboxApp
import Logging

/// `frostbox serve`: runs the HTTP API and the background services until SIGTERM/SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP service.",
        discussion: "Configuration: defaults < YAML file < FROSTBOX_… environment < these options. See data/frostbox.example.yaml.")

    @OptionGroup var options: ConfigOptions
    @Option(help: "Address to bind (server.host).") var host: String?
    @Option(help: "Port to bind, 0 picks a free one (server.port).") var port: Int?
    @Flag(help: "Offline demo: a built-in frost scenario instead of Open-Meteo, pushes only logged, a notify run every 10 s.") var demo = false

    func run() async throws {
        var logger = Logger(label: "frostbox")
        let loaded = try await options.load(
            command: "serve", named: ["server.host": host, "server.port": port.map(String.init)], logger: logger)
        logger = Logger(label: "frostbox")
        logger.logLevel = loaded.logLevel
        let config = demo ? loaded.demoMode() : loaded
        try await options.starting(command: "serve") {
            try await FrostboxApplication.serve(config: config, logger: logger) { port in
                // Printed, not logged: the token is a secret, and logs are kept.
                if let line = config.demoStatusLine(port: port) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
            }
        }
    }
}
