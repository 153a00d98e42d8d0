import ArgumentParser
import Foundation
import FrostboxApp
import Logging

/// The configuration options every command shares, so that `notify`, `forecast`, `import`
/// and the rest run on exactly the configuration `serve` runs on: defaults < YAML file <
/// `FROSTBOX_…` environment < these options.
struct ConfigOptions: ParsableArguments {
    @Option(help: "YAML configuration file (env FROSTBOX_CONFIG). See data/frostbox.example.yaml.") var config: String?
    @Option(help: "SQLite database file (database.path; env FROSTBOX_DB).") var db: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Set any configuration key.", valueName: "key=value")) var settings: [String] = []

    /// The loaded configuration; a bad file, key or value stops the command with exit 78
    /// (EX_CONFIG) and a message naming it. `named`: this command's own options, by key. The
    /// logging system is set up in the configured format: make the command's logger again.
    func load(command: String, named: [String: String?] = [:], logger: Logger) async throws -> FrostboxSettings {
        do {
            let overrides = try ConfigLoader.overrides(
                named: named.merging(["database.path": db]) { own, _ in own }, settings: settings)
            let loaded = try await ConfigLoader.load(.init(configPath: config, overrides: overrides), logger: logger)
            // Loggers made from here on write in the configured format (`log.format`).
            loaded.logFormat.bootstrap()
            return loaded
        } catch {
            FileHandle.standardError.write(Data("frostbox \(command): \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }

    /// Runs `body`; a configuration error it meets while starting (an APNs key that cannot be
    /// read, a port in use) stops the command as one met while loading does: a message, exit 78.
    func starting<T>(command: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("frostbox \(command): \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }
}
