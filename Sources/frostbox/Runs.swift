import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox runs`: the latest notify runs, newest first.
struct Runs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recent notify runs.")

    @Option(help: "How many runs to list.") var limit = 20
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        var logger = Logger(label: "frostbox.runs")
        logger.logLevel = .warning
        let path = try await options.load(command: "runs", logger: logger).databasePath
        let runs = try await NotifierCommands.recentRuns(databasePath: path, limit: max(1, limit), logger: logger)
        if runs.isEmpty { print("no notify runs yet") }
        for run in runs {
            let started = Date(timeIntervalSince1970: TimeInterval(run.startedAt)).formatted(.iso8601)
            print("\(started)  \(NotifierCommands.describe(run))")
        }
    }
}
