import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox notify --once [--dry-run]`: one notify run now (scheduled runs happen in `serve`).
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Plan frost alerts for every subscribed box and send them, once.")

    @Flag(help: "Run once now and exit (scheduled runs happen inside `frostbox serve`).") var once = false
    @Flag(help: "Plan and print the alerts; store and send nothing.") var dryRun = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        guard once else { throw ValidationError("pass --once; scheduled runs happen inside `frostbox serve`") }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.notify")
        // The same configuration as `serve`: its database, forecast settings and APNs apps.
        let config = try await options.load(command: "notify", logger: logger)
        logger.logLevel = config.logLevel
        let result = try await NotifierCommands.notifyOnce(config: config, dryRun: dryRun, logger: logger) { print($0) }
        switch result {
        case .alreadyRunning:
            print("another notify run is in progress on \(config.databasePath)")
            throw ExitCode(75)
        case .completed(let summary):
            print(summary.line)
            if summary.status != .completed { throw ExitCode.failure }
        }
    }
}
