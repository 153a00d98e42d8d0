import Foundation
import GRDB

/// The SQLite side of places generations: sealing a freshly built places file so that it
/// can be published, and checking a published one before a server reads it.
public enum PlaceGenerationFile {
    /// The places migrations a generation must have applied, in order: exactly those this
    /// build knows (a file from an older or newer build is refused).
    public static var migrations: [String] { PlacesMigrations.migrator.migrations }

    /// Makes the places file at `path` (closed by its builder) self-contained: the WAL
    /// folded back and, when `compact` (a rebuilt index), `VACUUM` and `ANALYZE` run without
    /// a journal (the file is a private temporary until it is renamed into place); then WAL
    /// mode recorded in the file so that servers open it with concurrent readers without
    /// writing to it. Returns what it holds; the caller fsyncs and publishes it.
    public static func seal(_ path: String, compact: Bool) throws -> (counts: PlaceGenerationCounts, migrations: [String]) {
        let queue = try DatabaseQueue(path: path)
        let result = try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            if compact {
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "ANALYZE")
            }
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            return (try PlaceGenerationCounts.read(db), try PlacesMigrations.migrator.appliedIdentifiers(db).sorted())
        }
        try queue.close()
        return (result.0, PlacesMigrations.migrator.migrations.filter(result.1.contains))
    }

    /// Opens the generation `manifest` describes (in `directory`) read-only after checking
    /// it: a regular file (not a link) of the bare name its manifest gives, the file's size, the schema (its migrations are this build's), `quick_check`, and
    /// every table's row count against the manifest. Throws what is wrong, and opens nothing
    /// then.
    public static func open(_ manifest: PlaceGenerationManifest, in directory: String) throws(PlaceGenerationError) -> PlacesDatabase {
        let path = (directory as NSString).appendingPathComponent(manifest.file)
        guard PlaceGenerationManifest.isGenerationFileName(manifest.file) else {
            throw PlaceGenerationError(path, "\"\(manifest.file)\" is not a bare generation file name")
        }
        let size: Int64
        switch DirectoryEntry.kind(at: path) {
        case .regular(let bytes): size = bytes
        case .missing: throw PlaceGenerationError(path, "the file is missing", incomplete: true)
        case .link: throw PlaceGenerationError(path, "the file is a symbolic link (refused: generations are plain files in the directory)")
        case .other: throw PlaceGenerationError(path, "the file is not a regular file")
        }
        guard size == manifest.bytes else {
            throw PlaceGenerationError(
                path, "the file has \(size) bytes, the manifest says \(manifest.bytes) (half-copied?)", incomplete: size < manifest.bytes)
        }
        guard manifest.migrations == migrations else {
            throw PlaceGenerationError(path, "schema \(manifest.migrations) is not this server's \(migrations)")
        }
        let database: PlacesDatabase
        do {
            database = try PlacesDatabase(generationAt: path)
            try database.pool.read { db in try check(db, manifest, path: path) }
        } catch let error as PlaceGenerationError {
            throw error
        } catch {
            throw PlaceGenerationError(path, "SQLite cannot read it: \(error)")
        }
        return database
    }

    static func check(_ db: Database, _ manifest: PlaceGenerationManifest, path: String) throws(PlaceGenerationError) {
        do {
            let applied = try PlacesMigrations.migrator.appliedIdentifiers(db)
            guard applied == Set(manifest.migrations) else {
                throw PlaceGenerationError(path, "the file's schema \(applied.sorted()) is not the manifest's \(manifest.migrations)")
            }
            let verdict = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard verdict == ["ok"] else {
                throw PlaceGenerationError(path, "quick_check failed: \(verdict.prefix(3).joined(separator: "; "))")
            }
            let counts = try PlaceGenerationCounts.read(db)
            guard counts == manifest.counts else {
                throw PlaceGenerationError(path, "it holds \(counts), the manifest says \(manifest.counts)")
            }
        } catch let error as PlaceGenerationError {
            throw error
        } catch {
            throw PlaceGenerationError(path, "SQLite cannot read it: \(error)")
        }
    }
}
