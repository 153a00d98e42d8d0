import ArgumentParser
import Foundation
import FrostboxApp
import Logging

/// `frostbox search hel --near 60.19,25.01`: the place search from the command line.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Search places by name prefix, near a point or worldwide.")

    @Argument(help: "The start of a place name.") var text: String
    // Unconditional: the value after --near is the point even when it starts with a minus
    // (`--near -33.87,151.2`), which ArgumentParser would otherwise read as an option.
    @Option(parsing: .unconditional, help: "LAT,LON to search around, e.g. 60.19,25.01 or -33.87,151.2.") var near: String?
    @Option(help: "Most results (1–50).") var limit = 10
    @Option(help: "Radius in km around --near within which places rank first.") var radiusKm = 200.0
    @Option(help: "Show names in this language when known, e.g. fi, sv, zh-Hant.") var lang: String?
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        do {
            _ = try PlaceCommands.searchQuery(text: text, near: near, limit: limit, radiusKilometres: radiusKm, language: lang)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.search")
        logger.logLevel = .warning
        let path = try await options.load(command: "search", logger: logger).placesPath
        logger = Logger(label: "frostbox.search")
        logger.logLevel = .warning
        print(
            try await PlaceCommands.search(
                text: text, near: near, limit: limit, radiusKilometres: radiusKm, language: lang, placesPath: path, logger: logger))
    }
}
