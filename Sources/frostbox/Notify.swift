import ArgumentParser
import Foundation
import FrostboxApp
import Logging

/// `frostbox notify --once [--dry-run]`: one notify run now (scheduled runs happen in `serve`).
/// Exit status: 0 completed, 1 failed, 2 degraded (some boxes or pushes failed), 64 usage,
/// 75 another run is going, 78 configuration.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plan frost alerts for every subscribed box and send them, once.",
        discussion:
            "Exit status: 0 completed, 1 failed (nothing could be done), 2 degraded (some boxes or pushes failed), 75 another run is going, 78 invalid configuration."
    )

    @Flag(help: "Run once now and exit (scheduled runs happen inside `frostbox serve`).") var once = false
    @Flag(help: "Plan and print the alerts; store and send nothing.") var dryRun = false
    @Flag(help: "As `serve --demo` runs: the built-in frost scenario's forecasts (no network), pushes only logged.") var demo = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        guard once else { throw ValidationError("pass --once; scheduled runs happen inside `frostbox serve`") }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.notify")
        // The same configuration as `serve`: its database, forecast settings and APNs apps.
        let loaded = try await options.load(command: "notify", logger: logger)
        let config = demo ? loaded.demoMode() : loaded
        logger = Logger(label: "frostbox.notify")
        logger.logLevel = config.logLevel
        let result = try await options.starting(command: "notify") {
            try await NotifierCommands.notifyOnce(config: config, dryRun: dryRun, logger: logger) { print($0) }
        }
        switch result {
        case .alreadyRunning:
            print("another notify run is in progress on \(config.databasePath)")
            throw ExitCode(75)
        case .completed(let summary):
            print(summary.line)
            switch summary.status {
            case .completed: return
            case .degraded: throw ExitCode(2)
            case .running, .failed, .interrupted: throw ExitCode.failure
            }
        }
    }
}
