/// Why a Web Push message could not be encrypted for a subscriber, or its VAPID token signed.
/// Names lengths and fields only, never key material, auth secrets or plaintext.
public struct WebPushEncryptionError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalidPublicKey
        case invalidAuthSecret
        case invalidSalt
        case plaintextTooLarge
        case cryptographyFailed
    }

    private let code: Code
    /// A human-readable explanation (sizes and field names only, never secrets).
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The subscription's `p256dh` is not a base64url, 65-byte uncompressed P-256 point on the curve.
    public static func invalidPublicKey(_ detail: String) -> Self {
        .init(.invalidPublicKey, "invalid Web Push p256dh key: \(detail) (expected the base64url of a 65-byte uncompressed P-256 point)")
    }

    /// The subscription's `auth` is not the base64url of exactly 16 bytes.
    public static func invalidAuthSecret(_ detail: String) -> Self {
        .init(.invalidAuthSecret, "invalid Web Push auth secret: \(detail) (expected the base64url of exactly 16 bytes)")
    }

    /// A salt given to the encryption is not 16 bytes.
    public static func invalidSalt(count: Int) -> Self {
        .init(.invalidSalt, "invalid Web Push salt: \(count) bytes, expected 16")
    }

    /// The plaintext does not fit one 4,096-byte aes128gcm body.
    public static func plaintextTooLarge(count: Int, limit: Int) -> Self {
        .init(.plaintextTooLarge, "Web Push plaintext of \(count) bytes is over the limit of \(limit) (the encrypted body must stay within 4096 bytes)")
    }

    /// A primitive (ECDH, AES-GCM, ECDSA) failed; not expected with keys that passed validation.
    public static func cryptographyFailed(_ step: String) -> Self {
        .init(.cryptographyFailed, "Web Push cryptography failed: \(step)")
    }

    public var description: String { message }
}
