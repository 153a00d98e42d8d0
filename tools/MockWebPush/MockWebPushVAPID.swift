import Crypto
import Foundation
import FrostboxCore

/// Checks a VAPID `Authorization` header as a push service does (RFC 8292): `vapid t=<JWT>, k=<key>`,
/// the JWT ES256-signed by `k`, its `aud` the push service's origin, `exp` in the future and
/// within 24 hours, and a `sub`.
enum MockWebPushVAPID {
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The signing key (base64url) when the header is valid.
    static func verify(_ header: String?, audience: String, now: Int64) -> Result<String, Refusal> {
        guard let header, header.hasPrefix("vapid ") else { return .failure(Refusal(description: "no vapid authorization")) }
        var parameters: [String: String] = [:]
        for part in header.dropFirst(6).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { parameters[String(pair[0])] = String(pair[1]) }
        }
        guard let token = parameters["t"], let key = parameters["k"] else { return .failure(Refusal(description: "vapid t= and k= required")) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2]), let keyBytes = Base64URL.decode(key),
            let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return .failure(Refusal(description: "malformed JWT or key")) }
        guard publicKey.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8)) else {
            return .failure(Refusal(description: "JWT signature does not verify with k"))
        }
        guard let head = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any], head["alg"] as? String == "ES256",
            let claims = try? JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any]
        else { return .failure(Refusal(description: "JWT header or claims not JSON, or alg not ES256")) }
        guard claims["aud"] as? String == audience else { return .failure(Refusal(description: "aud is not \(audience)")) }
        guard let exp = (claims["exp"] as? NSNumber)?.int64Value, exp > now, exp <= now + 86_400 else {
            return .failure(Refusal(description: "exp must be in the next 24 hours"))
        }
        guard let sub = claims["sub"] as? String, sub.hasPrefix("mailto:") || sub.hasPrefix("https://") else {
            return .failure(Refusal(description: "sub must be mailto: or https:"))
        }
        return .success(key)
    }
}
