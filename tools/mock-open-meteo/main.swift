import ArgumentParser
import Foundation
import Logging
import MockOpenMeteo

/// `mock-open-meteo`: the local Open-Meteo stand-in. Prints the bound port on its own line.
struct MockOpenMeteoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-open-meteo", abstract: "A local Open-Meteo double (/v1/forecast, /v1/ensemble, /v1/archive) for tests and benchmarks.")

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind (0 picks a free one, printed on stdout).") var port = 0
    @Option(help: "Scenario JSON file: frost spots, time zones, budgets, faults, frozen clock.") var scenario: String?
    @Flag(help: "Answer 429 at the free API's budgets (600 a minute, 5,000 an hour, 10,000 a day).") var freeBudgets = false

    func run() async throws {
        var loaded = MockScenario()
        if let scenario {
            loaded = try JSONDecoder().decode(MockScenario.self, from: Data(contentsOf: URL(fileURLWithPath: scenario)))
        }
        if freeBudgets, loaded.budgets == nil { loaded.budgets = .openMeteoFree }
        var logger = Logger(label: "mock-open-meteo")
        logger.logLevel = .warning
        let mock = MockOpenMeteo(scenario: loaded, logger: logger)
        let app = mock.makeApplication(host: host, port: port) { bound in
            FileHandle.standardOutput.write(Data("\(bound)\n".utf8))
        }
        try await app.runService()
    }
}

do {
    let command = try MockOpenMeteoCommand.parse()
    try await command.run()
} catch {
    MockOpenMeteoCommand.exit(withError: error)
}
