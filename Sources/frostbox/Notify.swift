import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox notify --once [--dry-run]`: one notify run now (scheduled runs happen in `serve`).
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Plan frost alerts for every subscribed box and send them, once.")

    @Flag(help: "Run once now and exit (scheduled runs happen inside `frostbox serve`).") var once = false
    @Flag(help: "Plan and print the alerts; store and send nothing.") var dryRun = false
    @Option(help: "SQLite database file (env FROSTBOX_DB; default ./frostbox.sqlite).") var db: String?

    func validate() throws {
        guard once else { throw ValidationError("pass --once; scheduled runs happen inside `frostbox serve`") }
    }

    func run() async throws {
        var config = FrostboxConfig()
        config.databasePath = db ?? ProcessInfo.processInfo.environment["FROSTBOX_DB"] ?? config.databasePath
        var logger = Logger(label: "frostbox.notify")
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
