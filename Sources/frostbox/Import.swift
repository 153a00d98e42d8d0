import ArgumentParser
import Foundation
import FrostboxApp
import FrostboxPlaceImport
import Logging

/// `frostbox import geonames FILE…`: loads GeoNames dumps into the place index.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import data.", subcommands: [GeoNames.self])

    struct GeoNames: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geonames",
            abstract: "Import GeoNames dumps (.txt or .zip), alternate names, daily update files, admin1CodesASCII.txt and countryInfo.txt.",
            discussion: """
                Files are recognised by name, or by content when renamed: geoname dumps (allCountries.zip, FI.txt, \
                modifications-DATE.txt), alternateNamesV2.zip/.txt and alternateNamesModifications-DATE.txt, \
                deletes-DATE.txt, alternateNamesDeletes-DATE.txt, admin1CodesASCII.txt, countryInfo.txt. \
                A day's files are applied in place in seconds; large files rebuild the name index. \
                Searches keep being answered from the previous places throughout.
                """)

        @Argument(help: "Files to import.") var files: [String]
        @Option(help: "Keep only these feature classes, e.g. P,A.") var featureClasses: String?
        @Option(help: "Keep only these countries, e.g. FI,SE.") var countries: String?
        @Option(help: "Keep only places with at least this population.") var minPopulation: Int64 = 0
        @Flag(help: "Drop every stored place first.") var replace = false
        @Flag(help: "Rebuild the name index even for files small enough to apply in place.") var rebuild = false
        @Option(help: "Write a new places generation into this directory (from its newest one) instead of changing the places file.")
        var build: String?
        @Option(help: "With --build: how many generations to keep in the directory.") var keep = 3
        @OptionGroup var shared: ConfigOptions

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give at least one GeoNames file") }
            guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        }

        func run() async throws {
            var options = PlaceImportOptions()
            options.featureClasses = PlaceImportOptions.codeSet(featureClasses)
            options.countries = PlaceImportOptions.codeSet(countries)
            options.minimumPopulation = minPopulation
            options.replace = replace
            if rebuild { options.incrementalLimitBytes = -1 }
            var logger = Logger(label: "frostbox.import")
            logger.logLevel = .warning
            let path = try await shared.load(command: "import", logger: logger).placesPath
            logger = Logger(label: "frostbox.import")
            logger.logLevel = .warning
            do {
                if let build {
                    print(try await PlaceCommands.buildGeneration(paths: files, options: options, directory: build, keep: keep, logger: logger))
                    return
                }
                let summary = try await PlaceCommands.importGeoNames(paths: files, options: options, placesPath: path, logger: logger)
                print(summary.text)
            } catch let error as PlaceImportError {
                guard case .nothingImported = error else { throw error }
                FileHandle.standardError.write(Data("frostbox import: \(error)\n".utf8))
                throw ExitCode(65)  // EX_DATAERR
            }
        }
    }
}
