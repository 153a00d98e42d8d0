import Crypto
import Foundation
import FrostboxCore

/// A signed APNs provider token (ES256 JWT) and the time it was issued. Its description is
/// redacted: a whole JWT never reaches a log.
public struct APNsProviderToken: Sendable, Hashable, CustomStringConvertible {
    /// `header.claims.signature`, base64url without padding.
    public let jwt: String
    /// The `iat` claim, UTC epoch seconds.
    public let issuedAt: Int64
    /// The key id it was signed with.
    public let keyID: String

    /// Signs a token for `key` issued at `issuedAt`: header `{"alg":"ES256","kid":…}`, claims
    /// `{"iat":…,"iss":…}` with an integer `iat`, signature raw r‖s as JWS requires.
    public init(key: APNsSigningKey, issuedAt: Int64) throws {
        let header = #"{"alg":"ES256","kid":"\#(key.keyID)"}"#
        let claims = #"{"iss":"\#(key.teamID)","iat":\#(issuedAt)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8))
        self.jwt = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        self.issuedAt = issuedAt
        self.keyID = key.keyID
    }

    /// The `authorization` header value.
    public var bearer: String { "bearer " + jwt }

    public var description: String { "APNsProviderToken(key: \(keyID), iat: \(issuedAt), jwt: \(jwt.prefix(8))…)" }
}
