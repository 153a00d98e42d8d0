import Crypto
import Foundation
import FrostboxCore

/// A signed VAPID token (RFC 8292): an ES256 JWT with header `{"typ":"JWT","alg":"ES256"}`
/// and claims `aud` (the push service's origin), `exp` and `sub`, sent with the key's public
/// half as `Authorization: vapid t=…, k=…`. Its description is redacted: a whole JWT never
/// reaches a log.
package struct VAPIDToken: Sendable, Hashable, CustomStringConvertible {
    /// How long a token is valid: `exp` is this far after its signing.
    package static let lifetime: Int64 = 12 * 60 * 60
    /// RFC 8292 §2: push services refuse an `exp` more than 24 hours ahead.
    package static let maximumLifetime: Int64 = 24 * 60 * 60

    /// `header.claims.signature`, base64url without padding.
    package let jwt: String
    /// The `aud` claim: the push service's origin, `https://host[:port]`.
    package let audience: String
    /// The `exp` claim, UTC epoch seconds.
    package let expiresAt: Int64
    /// The signing key's public half, base64url (the `k=` parameter).
    package let publicKey: String

    private static let encodedHeader = Base64URL.encode(#"{"typ":"JWT","alg":"ES256"}"#.utf8)

    /// Signs a token for the push service at `audience` (its origin: scheme, host and a
    /// non-default port, no path), valid for `lifetime` from `now` (UTC epoch seconds).
    package init(key: VAPIDKey, audience: String, subject: VAPIDSubject, now: Int64) throws(WebPushEncryptionError) {
        let expiresAt = now + Self.lifetime
        let claims: Data
        do {
            let encoder = JSONEncoder()
            // Sorted keys: the claims read the same on every run; unescaped slashes keep URLs legible.
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            claims = try encoder.encode(Claims(aud: audience, exp: expiresAt, sub: subject.value))
        } catch {
            throw .cryptographyFailed("encoding the VAPID claims")
        }
        let signingInput = Self.encodedHeader + "." + Base64URL.encode(claims)
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try key.privateKey.signature(for: Array(signingInput.utf8))
        } catch {
            throw .cryptographyFailed("ES256 signing of the VAPID token")
        }
        // JWS (RFC 7518 §3.4) takes the raw r ‖ s, not the DER form.
        self.jwt = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        self.audience = audience
        self.expiresAt = expiresAt
        self.publicKey = key.publicKeyBase64URL
    }

    /// The `Authorization` header value (RFC 8292 §3).
    package var authorization: String { "vapid t=\(jwt), k=\(publicKey)" }

    package var description: String { "VAPIDToken(aud: \(audience), exp: \(expiresAt), jwt: \(jwt.prefix(8))…)" }

    private struct Claims: Encodable {
        let aud: String
        let exp: Int64
        let sub: String
    }
}
