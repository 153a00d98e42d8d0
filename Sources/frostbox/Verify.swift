import ArgumentParser
import FrostboxApp
import FrostboxCore
import Logging

/// `frostbox verify`: how right the alerts were (issue #48).
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how right the alerts were: the nights checked against what happened, scored overall, by region, lead and month.")

    @Option(help: "Count nights from this date on (YYYY-MM-DD); default: every night kept.") var since: String?
    @Flag(help: "Print the scores as the JSON of GET /admin/verification instead of tables.") var json = false
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        if let since, since.count != 10 || LocalDate(text: since).map({ LocalDate(daysSinceEpoch: $0.daysSinceEpoch) != $0 }) ?? true {
            throw ValidationError("--since must be a date as YYYY-MM-DD (got \"\(since)\")")
        }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.verify")
        logger.logLevel = .warning
        let config = try await options.load(command: "verify", logger: logger)
        let overview = try await VerificationCommands.overview(config: config, since: since.flatMap { LocalDate(text: $0) }, logger: logger)
        print(json ? try VerificationCommands.json(overview) : VerificationCommands.text(overview))
    }
}
