import Foundation

/// A fresh directory under the system's temporary directory for one test, removed with
/// everything in it when the last reference goes (the end of a test or of the suite
/// instance that holds it).
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// `prefix` names the directory, so a leftover (a crashed run) says where it came from.
    public init(prefix: String = "frostbox-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of a file in the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A database file path in the directory.
    public var databasePath: String { path("frostbox.sqlite") }

    deinit { try? FileManager.default.removeItem(at: url) }
}
