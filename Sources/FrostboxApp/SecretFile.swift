import Foundation
import Logging
import Synchronization

/// Reads secrets (APNs `.p8` keys, TLS keys, the admin token) from files. Contents are never
/// logged; a file that group or others may read gets a warning naming only its path.
public enum SecretFile {
    /// Why a secret could not be read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        /// The file.
        public let path: String
        /// What went wrong (never the contents).
        public let problem: String
        public var description: String { "cannot read secret file \(path): \(problem)" }
    }

    /// Largest secret file read (keys and certificates are a few KiB).
    public static let maximumSize = 1 << 20

    /// The file's bytes, after checking its permissions.
    public static func read(_ path: String, logger: Logger) throws(ReadError) -> Data {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw ReadError(path: path, problem: "no such file or not accessible")
        }
        if (attributes[.type] as? FileAttributeType) == .typeDirectory {
            throw ReadError(path: path, problem: "is a directory")
        }
        if let size = attributes[.size] as? Int, size > maximumSize {
            throw ReadError(path: path, problem: "larger than \(maximumSize) bytes")
        }
        warnIfOpen(path, attributes: attributes, logger: logger)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadError(path: path, problem: "cannot be read")
        }
        return data
    }

    /// The file as UTF-8 text with surrounding white space removed.
    public static func readText(_ path: String, logger: Logger) throws(ReadError) -> String {
        let data = try read(path, logger: logger)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ReadError(path: path, problem: "is not UTF-8 text")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Logs a warning naming `path` (never its contents) when group or others may read it;
    /// for secret files another part reads (the APNs apps file's keys).
    public static func warnIfOpen(_ path: String, logger: Logger) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return }
        warnIfOpen(path, attributes: attributes, logger: logger)
    }

    static func warnIfOpen(_ path: String, attributes: [FileAttributeKey: Any], logger: Logger) {
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, let warning = permissionWarning(mode: mode),
            warned.withLock({ $0.insert("\(mode & 0o777) \(path)").inserted })
        {
            logger.warning(
                "secret file is readable by other users; restrict it with chmod 600",
                metadata: ["path": "\(path)", "mode": "\(String(mode & 0o777, radix: 8))", "problem": "\(warning)"])
        }
    }

    /// Files (and modes) already warned about: the configuration reader and the push
    /// components both look at a key file, and one warning a file is enough.
    private static let warned = Mutex<Set<String>>([])

    /// Why `mode` is too open for a secret, or nil when only the owner may read it.
    public static func permissionWarning(mode: Int) -> String? {
        switch (mode & 0o040 != 0, mode & 0o004 != 0) {
        case (_, true): "readable by everyone"
        case (true, false): "readable by the group"
        default: nil
        }
    }
}
