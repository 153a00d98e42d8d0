import Foundation
import FrostboxSQLite

/// A fresh directory for one test's SQLite file, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var databasePath: String { url.appendingPathComponent("frostbox.sqlite").path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
