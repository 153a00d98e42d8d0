/// Why the Web Push settings (the VAPID key file, the VAPID subject) could not be used. Names
/// paths, modes and what is accepted, never key material.
public struct WebPushConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case unreadableFile
        case exposedFile
        case invalidKey
        case existingFile
        case unwritableFile
        case invalidSubject
        case invalidApp
    }

    private let code: Code
    /// A human-readable explanation (paths, modes and rules only, never secrets).
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The key file is missing, not a regular file, too large, or could not be read.
    public static func unreadableFile(_ path: String, _ problem: String) -> Self {
        .init(.unreadableFile, "cannot read VAPID key file \(path): \(problem)")
    }

    /// The key file may be read by its group or by others.
    public static func exposedFile(_ path: String, mode: UInt32) -> Self {
        let octal = String(mode & 0o777, radix: 8)
        return .init(
            .exposedFile,
            "VAPID key file \(path) has mode 0\(octal): group or others may access it; run `chmod 600 \(path)` (the key signs every push this server sends)"
        )
    }

    /// The key file holds no usable P-256 private key.
    public static func invalidKey(_ source: String, _ detail: String) -> Self {
        .init(.invalidKey, "invalid VAPID key in \(source): \(detail)")
    }

    /// A new key was not written because something is at the path already.
    public static func existingFile(_ path: String) -> Self {
        .init(.existingFile, "\(path) exists already; a VAPID key is never written over an existing file (move it away, or use it)")
    }

    /// A new key could not be written.
    public static func unwritableFile(_ path: String, _ problem: String) -> Self {
        .init(.unwritableFile, "cannot write VAPID key file \(path): \(problem)")
    }

    /// The VAPID subject is neither a plausible `mailto:` address nor an `https://` URL with a public host.
    public static func invalidSubject(_ subject: String, _ detail: String) -> Self {
        .init(
            .invalidSubject,
            "invalid VAPID subject \"\(subject)\": \(detail); accepted: mailto:name@example.com or an https:// URL with a dotted host"
                + " (https://example.com/contact), not localhost or a host without a dot, which push services refuse"
        )
    }

    /// An app that cannot be set up as configured.
    public static func invalidApp(_ name: String, _ problem: String) -> Self {
        .init(.invalidApp, "Web Push app \(name) \(problem)")
    }

    public var description: String { message }
}
