import Crypto
import Foundation
import Synchronization

/// Checks provider tokens as APNs does: an ES256 JWT whose header names a known key (`kid`)
/// and whose claims name that key's team (`iss`) and carry an integer `iat` under an hour old.
/// Signatures are verified once per distinct token.
final class MockAPNsTokenVerifier: Sendable {
    struct Verified: Sendable, Hashable {
        var keyID: String
        var teamID: String
        var issuedAt: Int64
    }

    enum Failure: Error, Equatable {
        case missing
        case invalid
        case expired
        case tooManyUpdates
    }

    private struct State {
        var verified: [String: Verified] = [:]
        /// Per connection and key id: the token last seen there and when it first appeared
        /// (mock clock). APNs limits token changes per connection; separate connections (other
        /// servers, a CLI run) may each bring their own token.
        var latest: [String: (jwt: String, since: Int64)] = [:]
        var distinct = 0
    }

    private let keys: [String: MockAPNsSettings.TrustedKey]
    private let maximumAge: Int64
    private let minimumUpdateInterval: Int64?
    private let state = Mutex(State())

    init(configuration: MockAPNsSettings) {
        keys = configuration.signingKeys
        maximumAge = configuration.maximumTokenAge
        minimumUpdateInterval = configuration.minimumTokenUpdateInterval
    }

    var distinctTokens: Int { state.withLock { $0.distinct } }

    /// Verifies the `authorization` header value at `now`.
    func verify(authorization: String?, now: Int64, connection: Int) -> Result<Verified, Failure> {
        guard let authorization, authorization.hasPrefix("bearer ") || authorization.hasPrefix("Bearer ") else {
            return .failure(.missing)
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        let cached = state.withLock { $0.verified[jwt] }
        let verified: Verified
        if let cached {
            verified = cached
        } else {
            guard let fresh = check(jwt) else { return .failure(.invalid) }
            verified = fresh
        }
        if now - verified.issuedAt > maximumAge {
            return .failure(.expired)
        }
        if verified.issuedAt > now + 60 {
            return .failure(.invalid)
        }
        return state.withLock { state -> Result<Verified, Failure> in
            if state.verified[jwt] == nil {
                state.distinct += 1
                if state.verified.count > 10_000 { state.verified.removeAll() }
                state.verified[jwt] = verified
            }
            let slot = "\(connection)/\(verified.keyID)"
            if let latest = state.latest[slot] {
                if latest.jwt != jwt {
                    if let interval = minimumUpdateInterval, now - latest.since < interval {
                        return .failure(.tooManyUpdates)
                    }
                    state.latest[slot] = (jwt, now)
                }
            } else {
                if state.latest.count > 10_000 { state.latest.removeAll() }
                state.latest[slot] = (jwt, now)
            }
            return .success(verified)
        }
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    /// Decoding `iat` as `Int64` refuses `1700000000.5`, `"1700000000"` and `true`, as APNs does.
    private struct Claims: Decodable {
        var iss: String
        var iat: Int64
    }

    private func check(_ jwt: String) -> Verified? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        let decoder = JSONDecoder()
        guard parts.count == 3,
            let headerData = base64URLDecode(parts[0]),
            let claimsData = base64URLDecode(parts[1]),
            let signatureData = base64URLDecode(parts[2]),
            let header = try? decoder.decode(Header.self, from: headerData),
            let claims = try? decoder.decode(Claims.self, from: claimsData),
            header.alg == "ES256",
            let key = keys[header.kid],
            claims.iss == key.teamID
        else { return nil }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return nil }
        return Verified(keyID: header.kid, teamID: key.teamID, issuedAt: claims.iat)
    }

    private func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }
}
