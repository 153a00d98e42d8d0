import Crypto
import FrostboxCore

/// The keys a browser gives with its push subscription (`PushSubscription.getKey`): the
/// user agent's P-256 public key (`p256dh`) and the 16-byte authentication secret (`auth`).
/// A message is encrypted to these keys (RFC 8291). Its description never shows `auth`.
package struct WebPushSubscriberKeys: Sendable, Equatable, CustomStringConvertible {
    /// The number of bytes of an uncompressed P-256 point (0x04 ‖ x ‖ y).
    package static let publicKeyCount = 65
    /// The number of bytes of the authentication secret.
    package static let authSecretCount = 16

    /// The user agent's public key.
    package let p256dh: P256.KeyAgreement.PublicKey
    /// The authentication secret.
    package let auth: [UInt8]
    /// `p256dh` as its 65 uncompressed bytes, kept to build the key info of every message.
    let publicKeyBytes: [UInt8]

    /// Validates the base64url texts a browser's subscription carries: `p256dh` must be a
    /// 65-byte uncompressed point on P-256, `auth` exactly 16 bytes.
    package init(p256dh: String, auth: String) throws(WebPushEncryptionError) {
        guard let publicKeyBytes = Base64URL.decode(p256dh) else { throw .invalidPublicKey("not base64url") }
        guard let authBytes = Base64URL.decode(auth) else { throw .invalidAuthSecret("not base64url") }
        try self.init(p256dh: publicKeyBytes, auth: authBytes)
    }

    /// Validates raw bytes: an uncompressed P-256 point on the curve, and a 16-byte secret.
    package init(p256dh: [UInt8], auth: [UInt8]) throws(WebPushEncryptionError) {
        guard p256dh.count == Self.publicKeyCount else { throw .invalidPublicKey("\(p256dh.count) bytes") }
        guard p256dh[0] == 0x04 else { throw .invalidPublicKey("not an uncompressed point") }
        guard auth.count == Self.authSecretCount else { throw .invalidAuthSecret("\(auth.count) bytes") }
        do {
            // swift-crypto (BoringSSL) checks that the point lies on the curve.
            self.p256dh = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        } catch {
            throw .invalidPublicKey("not a point on P-256")
        }
        self.publicKeyBytes = p256dh
        self.auth = auth
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.publicKeyBytes == rhs.publicKeyBytes && lhs.auth == rhs.auth
    }

    package var description: String { "WebPushSubscriberKeys(p256dh: \(Base64URL.encode(publicKeyBytes).prefix(8))…)" }
}
