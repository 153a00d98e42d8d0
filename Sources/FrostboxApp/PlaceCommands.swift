import Foundation
import FrostboxCore
import FrostboxPlaceImport
import FrostboxSQLite
import Logging
import Synchronization

/// The logic behind `frostbox import geonames` and `frostbox search`, so that the CLI
/// commands stay thin.
public enum PlaceCommands {
    /// Imports GeoNames files into the database at `databasePath`, drawing progress on
    /// standard error (a live line on a terminal, a plain line every 5 s otherwise).
    public static func importGeoNames(
        paths: [String], options: PlaceImportOptions, placesPath: String, logger: Logger
    ) async throws -> PlaceImportSummary {
        guard PlacesInUse.layout(of: placesPath) == .file else {
            throw PlaceGenerationError(placesPath, "places.path holds generations, which are never changed: import with --build DIRECTORY")
        }
        let database = try PlacesDatabase(path: placesPath, logger: logger)
        let printer = ProgressPrinter(live: isatty(STDERR_FILENO) == 1)
        let summary = try await PlaceImport.run(
            paths: paths, options: options, database: database, logger: logger, progress: printer.report)
        printer.end()
        return summary
    }

    /// Builds a new places generation into `directory` (`--build`) and describes it.
    public static func buildGeneration(
        paths: [String], options: PlaceImportOptions, directory: String, keep: Int, logger: Logger
    ) async throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PlaceGenerationError(directory, "--build needs an existing directory")
        }
        let printer = ProgressPrinter(live: isatty(STDERR_FILENO) == 1)
        let outcome = try await PlaceGenerationBuild.run(
            paths: paths, options: options, directory: directory, keep: keep, logger: logger, progress: printer.report)
        printer.end()
        return [
            outcome.summary.text,
            "generation: \(outcome.manifest.file) (from \(outcome.base ?? "an empty file"))",
            "holds: \(outcome.manifest.counts), \(outcome.manifest.bytes) bytes, sha256 \(outcome.manifest.sha256)",
        ].joined(separator: "\n") + (outcome.pruned.isEmpty ? "" : "\ndeleted older: \(outcome.pruned.joined(separator: ", "))")
    }

    /// The search `frostbox search` asks for, validated; a refusal speaks of the command's
    /// argument and options (`TEXT`, `--near`, `--limit`, `--radius-km`), not of the HTTP
    /// route's parameters.
    public static func searchQuery(
        text: String, near: String?, limit: Int, radiusKilometres: Double, language: String? = nil
    ) throws(ValidationError) -> PlaceQuery {
        var point: Coordinate?
        if let near {
            do throws(ValidationError) {
                point = try Coordinate(parsing: near, field: "--near")
            } catch {
                throw ValidationError(
                    .invalidCoordinate, field: "near", "--near must be LAT,LON with latitude in [-90, 90] and longitude in [-180, 180], e.g. 60.19,25.01")
            }
        }
        let languages = try language.map { raw throws(ValidationError) in [try LanguageTag.parse(raw, field: "--lang")] } ?? []
        do throws(ValidationError) {
            return try PlaceQuery(text: text, near: point, limit: limit, radiusKilometres: radiusKilometres, languages: languages)
        } catch {
            let option = ["q": "the search text", "limit": "--limit", "radius_km": "--radius-km"][error.field ?? ""]
            guard let option, let field = error.field, error.message.hasPrefix(field + " ") else { throw error }
            throw ValidationError(error.code, field: error.field, option + error.message.dropFirst(field.count))
        }
    }

    /// Runs a search and formats one line per result.
    public static func search(
        text: String, near: String?, limit: Int, radiusKilometres: Double, language: String? = nil, placesPath: String,
        logger: Logger
    ) async throws -> String {
        let query = try searchQuery(text: text, near: near, limit: limit, radiusKilometres: radiusKilometres, language: language)
        let places = try PlacesInUse(path: placesPath, logger: logger)
        let matches = try await GRDBPlaceIndex(places: places).search(query)
        let hint = try await PlaceCoverage.hint(places.database).map { "\nnote: \($0)" } ?? ""
        guard !matches.isEmpty else { return "no places match \"\(text)\"" + hint }
        return matches.enumerated().map { index, match in
            let place = match.place
            var where_ = [match.admin1Name, match.countryName ?? place.countryCode].compactMap { $0 }.filter { !$0.isEmpty }
            if where_.first == match.displayName { where_.removeFirst() }
            let distance = match.distanceKilometres.map { String(format: "%7.1f km", $0) } ?? ""
            let matched = match.matchedName == match.displayName ? "" : " [\(match.matchedName)]"
            return String(
                format: "%2d. %@%@ — %@  pop %lld  %@  %@ (id %lld)", index + 1, match.displayName, matched,
                where_.joined(separator: ", "), place.population, place.featureCode, distance, place.id)
        }.joined(separator: "\n") + hint
    }
}

/// Draws import progress on standard error.
final class ProgressPrinter: Sendable {
    let live: Bool
    private let lastPlain = Mutex<Double>(-1)

    init(live: Bool) { self.live = live }

    func report(_ progress: PlaceImportProgress) {
        let line = Self.format(progress)
        if live {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
            return
        }
        let due = lastPlain.withLock { last -> Bool in
            guard progress.phase != nil || last < 0 || progress.elapsedSeconds - last >= 5 else { return false }
            last = progress.elapsedSeconds
            return true
        }
        if due { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
    }

    func end() {
        if live { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func format(_ progress: PlaceImportProgress) -> String {
        let rate = progress.elapsedSeconds > 0 ? Double(progress.rowsRead) / progress.elapsedSeconds : 0
        var line = "\(progress.rowsRead) rows, \(Int(rate)) rows/s"
        if progress.totalBytes > 0 {
            let fraction = min(Double(progress.bytesRead) / Double(progress.totalBytes), 1)
            line += String(format: ", %.1f%%", fraction * 100)
            if fraction > 0.001 && progress.phase == nil {
                let remaining = progress.elapsedSeconds * (1 - fraction) / fraction
                line += ", ETA \(Int(remaining) / 60)m\(String(format: "%02d", Int(remaining) % 60))s"
            }
        }
        if let phase = progress.phase { line += " — \(phase)" }
        return line
    }
}
