import ArgumentParser
import Foundation
import FrostboxApp
import Logging

/// `frostbox runs`: the latest notify runs, newest first.
struct Runs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recent notify runs, newest first.")

    @Option(help: "How many runs to list (at least 1).") var limit = 20
    @Flag(help: "Print the runs as a JSON array instead of a table.") var json = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1 (got \(limit))") }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.runs")
        logger.logLevel = .warning
        let config = try await options.load(command: "runs", logger: logger)
        logger = Logger(label: "frostbox.runs")
        logger.logLevel = .warning
        let (runs, workers) = try await NotifierCommands.recentRuns(config: config, limit: limit, logger: logger)
        if json {
            print(try RunsTable.json(runs, workers: workers))
        } else {
            print(runs.isEmpty ? "no notify runs yet" : RunsTable.text(runs, workers: workers))
        }
    }
}
