import Foundation
import FrostboxGeoNames
import FrostboxSQLite

/// The outcome of an import: counts, and for each skip reason how many lines and where
/// the first of them are.
public struct PlaceImportSummary: Sendable {
    /// Skipped lines of one reason.
    public struct Skips: Sendable {
        public var count = 0
        /// `file:line` of the first few.
        public var firstLines: [String] = []
    }

    public var rowsRead = 0
    /// Rows that passed the filters and were staged.
    public var accepted = 0
    /// Valid rows left out by `--feature-classes`, `--countries` or `--min-population`.
    public var filtered = 0
    public var skipped: [GeoNamesSkipReason: Skips] = [:]
    public var admin1Read = 0
    public var countriesRead = 0
    /// Rows of alternate names files read (valid ones).
    public var alternatesRead = 0
    /// Rows of delete files read (valid ones).
    public var deletesRead = 0
    /// Stored places a bulk import re-indexed because their alternate names changed.
    public var reindexed = 0
    /// The bulk import's outcome (nil when the files were applied in place).
    public var result: PlaceImportResult?
    /// What was applied in place: the whole import, or a bulk import's deletes.
    public var update: PlaceUpdateResult?
    public var elapsedSeconds = 0.0

    public var skippedCount: Int { skipped.values.reduce(0) { $0 + $1.count } }

    mutating func skip(_ reason: GeoNamesSkipReason, file: String, line: Int) {
        var entry = skipped[reason, default: Skips()]
        entry.count += 1
        if entry.firstLines.count < 5 { entry.firstLines.append("\(file):\(line)") }
        skipped[reason] = entry
    }

    /// The summary as the CLI prints it.
    public var text: String {
        var lines: [String] = []
        let rate = elapsedSeconds > 0 ? Int(Double(rowsRead) / elapsedSeconds) : 0
        lines.append("rows read: \(rowsRead) in \(String(format: "%.1f", elapsedSeconds)) s (\(rate) rows/s)")
        lines.append("imported: \(accepted)" + (filtered > 0 ? ", left out by filters: \(filtered)" : ""))
        if alternatesRead > 0 { lines.append("alternate names read: \(alternatesRead)") }
        if reindexed > 0 { lines.append("stored places re-indexed for their alternate names: \(reindexed)") }
        if let update {
            lines.append(
                "applied in place: places written \(update.placesWritten) (replacing \(update.placesReplaced)), deleted \(update.placesDeleted)"
                    + (update.unknownPlaceDeletes > 0 ? ", deletes of unknown ids \(update.unknownPlaceDeletes)" : ""))
            if update.alternatesWritten + update.alternatesDeleted + update.unknownAlternateDeletes + update.alternatesOfUnknownPlaces > 0 {
                lines.append(
                    "alternate names written \(update.alternatesWritten), deleted \(update.alternatesDeleted)"
                        + (update.unknownAlternateDeletes > 0 ? ", deletes of unknown ids \(update.unknownAlternateDeletes)" : "")
                        + (update.alternatesOfUnknownPlaces > 0 ? ", of places not stored \(update.alternatesOfUnknownPlaces)" : ""))
            }
            lines.append(
                "places re-indexed: \(update.placesReindexed) (name rows +\(update.nameRowsAdded) −\(update.nameRowsRemoved))")
        }
        if let result {
            lines.append("replaced existing: \(result.replaced); places stored: \(result.total); names indexed: \(result.names)")
            if admin1Read + countriesRead > 0 {
                lines.append("admin1 divisions stored: \(result.admin1); countries stored: \(result.countries)")
            }
        }
        lines.append("skipped: \(skippedCount)")
        for reason in skipped.keys.sorted() {
            let entry = skipped[reason]!
            lines.append("  \(reason.rawValue): \(entry.count) (first: \(entry.firstLines.joined(separator: ", ")))")
        }
        return lines.joined(separator: "\n")
    }
}

/// Why an import did not start.
public enum PlaceImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another import into the same database holds its lock.
    case alreadyRunning(String)
    /// The files held no usable row (`filtered`: valid places the filters left out; `skipped`:
    /// dirty lines). Nothing was swapped in: the stored places are unchanged, even with `--replace`.
    case nothingImported(filtered: Int, skipped: Int)

    public var description: String {
        switch self {
        case .alreadyRunning(let path): "another import into \(path) is running; wait for it to finish"
        case .nothingImported(let filtered, _) where filtered > 0:
            "nothing imported: the filters (--feature-classes, --countries, --min-population) left out all \(filtered) places read; the stored places are unchanged"
        case .nothingImported(_, let skipped):
            "nothing imported: the files hold no GeoNames rows (\(skipped) lines skipped); the stored places are unchanged"
        }
    }
}
