import Foundation
import FrostboxCore
import _CryptoExtras

/// The OAuth2 JWT-bearer assertion a service account trades for an access token (RFC 7523 as
/// Google profiles it): RS256 over `{"alg":"RS256","typ":"JWT"[,"kid"]}` and the claims
/// `iss` (the account's e-mail), `scope` (FCM sending), `aud` (the token URI), `iat`, `exp`.
/// Its description is redacted: a whole assertion never reaches a log.
public struct FCMAssertion: Sendable, CustomStringConvertible {
    /// The scope FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Lifetime asked for; Google refuses assertions whose `exp` is more than an hour past `iat`.
    public static let lifetime: Int64 = 3600
    /// The grant type of the token request.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The compact JWS (`header.claims.signature`, base64url without padding).
    public let compact: String
    /// `iat`, UTC epoch seconds.
    public let issuedAt: Int64

    /// Signs an assertion for `account`, issued at `now` (UTC epoch seconds).
    public init(account: FCMServiceAccount, now: Int64) throws {
        var header = #"{"alg":"RS256","typ":"JWT""#
        if let kid = account.privateKeyID { header += #","kid":"# + Self.jsonString(kid) }
        header += "}"
        let claims =
            #"{"iss":"# + Self.jsonString(account.clientEmail) + #","scope":"# + Self.jsonString(Self.scope) + #","aud":"#
            + Self.jsonString(account.tokenURI) + #","iat":\#(now),"exp":\#(now + Self.lifetime)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try account.privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        compact = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        issuedAt = now
    }

    /// The `application/x-www-form-urlencoded` body of the token request.
    public var formBody: String {
        // Both values are URL-safe already (a URN of [a-z:-], base64url and dots), but the
        // colons are escaped as a form encoder would.
        "grant_type=" + Self.grantType.replacingOccurrences(of: ":", with: "%3A") + "&assertion=" + compact
    }

    public var description: String { "FCMAssertion(iat: \(issuedAt), \(redact(compact)))" }

    /// A JSON string literal.
    static func jsonString(_ value: String) -> String {
        // JSONEncoder writes a top-level string as a JSON string; it cannot fail for a String.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "\"\""
    }
}

/// The log-safe form of a secret: its first 6 and last 4 characters.
func redact(_ secret: String) -> String {
    secret.count <= 12 ? "…" : "\(secret.prefix(6))…\(secret.suffix(4))"
}
