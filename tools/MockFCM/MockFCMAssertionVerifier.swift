import Foundation
import _CryptoExtras

/// Checks a JWT-bearer assertion as Google's token endpoint does: RS256 signed by a known
/// account's key, `iss` that account, `scope` naming FCM, `aud` the token URI, `iat` not in
/// the future, `exp` after now and at most an hour after `iat`.
struct MockFCMAssertionVerifier: Sendable {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Clock skew allowed on `iat` and `exp`.
    static let skew: Int64 = 60

    let accounts: [String: MockFCMSettings.KnownAccount]
    let clock: @Sendable () -> Int64

    /// The account's e-mail, or the `invalid_grant` description.
    func verify(_ assertion: String, audience: String) -> Result<String, Refusal> {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.base64URLDecode(parts[0]), let claimsData = Self.base64URLDecode(parts[1]),
            let signature = Self.base64URLDecode(parts[2])
        else { return .failure(Refusal(description: "Invalid JWT: not a compact JWS")) }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { return .failure(Refusal(description: "Invalid JWT: header or claims not JSON objects")) }
        guard header["alg"] as? String == "RS256" else { return .failure(Refusal(description: "Invalid JWT: alg must be RS256")) }
        guard let issuer = claims["iss"] as? String, let account = accounts[issuer] else {
            return .failure(Refusal(description: "Invalid JWT Signature."))
        }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signingInput, padding: .insecurePKCS1v1_5)
        else { return .failure(Refusal(description: "Invalid JWT Signature.")) }
        guard let scope = claims["scope"] as? String, scope.split(separator: " ").contains(Substring(Self.scope)) else {
            return .failure(Refusal(description: "Invalid scope: the assertion must ask for \(Self.scope)"))
        }
        guard claims["aud"] as? String == audience else {
            return .failure(
                Refusal(
                    description:
                        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim. (aud)"
                ))
        }
        guard let iat = (claims["iat"] as? NSNumber)?.int64Value, let exp = (claims["exp"] as? NSNumber)?.int64Value else {
            return .failure(Refusal(description: "Invalid JWT: iat and exp must be numbers"))
        }
        let now = clock()
        guard iat <= now + Self.skew, exp > now - Self.skew, exp > iat, exp - iat <= 3600 else {
            return .failure(
                Refusal(
                    description:
                        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
                ))
        }
        return .success(issuer)
    }

    /// The `error_description` of an `invalid_grant` answer.
    struct Refusal: Error {
        let description: String
    }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
