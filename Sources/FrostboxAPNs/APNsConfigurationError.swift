/// Why APNs credentials or app settings could not be used. Never carries key material.
public struct APNsConfigurationError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case unreadableFile
        case invalidSigningKey
        case invalidCertificate
        case invalidApp
        case unknownDefaultApp
    }

    private let code: Code
    /// A human-readable explanation (file paths and ids only, never secrets).
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A key or certificate file could not be read.
    public static func unreadableFile(_ path: String) -> Self {
        .init(.unreadableFile, "cannot read \(path)")
    }

    /// The `.p8` file is not a PKCS#8 PEM P-256 key, or the key id / team id are malformed.
    public static func invalidSigningKey(_ detail: String) -> Self {
        .init(.invalidSigningKey, "invalid APNs signing key: \(detail)")
    }

    /// The certificate, its key or the `.p12` bundle could not be loaded.
    public static func invalidCertificate(_ detail: String) -> Self {
        .init(.invalidCertificate, "invalid APNs certificate: \(detail)")
    }

    /// An app's settings are inconsistent.
    public static func invalidApp(_ bundleID: String, _ detail: String) -> Self {
        .init(.invalidApp, "APNs app \(bundleID): \(detail)")
    }

    /// The default app is not among the configured apps.
    public static func unknownDefaultApp(_ bundleID: String) -> Self {
        .init(.unknownDefaultApp, "default APNs app \(bundleID) is not configured")
    }

    public var description: String { message }
}
