import FrostboxCore

/// Why an FCM app's settings or service-account key could not be used. Names files, fields
/// and ids only, never key material or tokens.
public struct FCMConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case unreadableFile
        case invalidServiceAccount
        case invalidApp
        case unknownDefaultApp
    }

    private let code: Code
    /// A human-readable explanation (paths, field names and ids only, never secrets).
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The service-account key file could not be read.
    public static func unreadableFile(_ path: String, _ problem: String) -> Self {
        .init(.unreadableFile, "cannot read FCM service-account file \(path): \(problem)")
    }

    /// The key file is not a usable service-account key (what is wrong, never its contents).
    public static func invalidServiceAccount(_ path: String, _ detail: String) -> Self {
        .init(.invalidServiceAccount, "invalid FCM service-account file \(path): \(detail)")
    }

    /// An app's settings are inconsistent.
    public static func invalidApp(_ packageName: String, _ detail: String) -> Self {
        .init(.invalidApp, "FCM app \(packageName): \(detail)")
    }

    /// The default app is not among the configured apps.
    public static func unknownDefaultApp(_ packageName: String) -> Self {
        .init(.unknownDefaultApp, "default FCM app \(packageName) is not configured")
    }

    public var description: String { message }
}
