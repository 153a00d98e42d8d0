import Crypto
import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxWebPush
import Testing

@Suite("VAPID tokens")
struct VAPIDTokenTests {
    static let now: Int64 = 1_800_000_000
    static let origin = "https://fcm.googleapis.com"

    struct Claims: Decodable, Equatable {
        let aud: String
        let exp: Int64
        let sub: String
    }

    /// The three base64url parts of a compact JWS, decoded.
    static func parts(_ jwt: String) throws -> [[UInt8]] {
        let texts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(texts.count == 3)
        return try texts.map { try #require(Base64URL.decode($0)) }
    }

    @Test("the JWT's raw r‖s signature verifies with the key's public half")
    func signatureVerifies() throws {
        let key = VAPIDKey.generate()
        let token = try VAPIDToken(key: key, audience: Self.origin, subject: VAPIDSubject("mailto:ops@example.com"), now: Self.now)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.parts(token.jwt)[2])
        let signingInput = token.jwt[..<token.jwt.lastIndex(of: ".")!]
        #expect(key.publicKey.isValidSignature(signature, for: Array(signingInput.utf8)))
        #expect(!VAPIDKey.generate().publicKey.isValidSignature(signature, for: Array(signingInput.utf8)))
    }

    @Test("the header is {typ JWT, alg ES256} and the claims are aud, sub as given and exp twelve hours on")
    func headerAndClaims() throws {
        let subject = try VAPIDSubject("https://frost.example.com/contact")
        let token = try VAPIDToken(key: .generate(), audience: "https://push.example.net:8443", subject: subject, now: Self.now)
        let parts = try Self.parts(token.jwt)
        #expect(String(decoding: parts[0], as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        let claims = try JSONDecoder().decode(Claims.self, from: Data(parts[1]))
        #expect(claims == Claims(aud: "https://push.example.net:8443", exp: Self.now + 12 * 3600, sub: "https://frost.example.com/contact"))
        #expect(claims.exp - Self.now == 12 * 3600)
        #expect(claims.exp - Self.now <= VAPIDToken.maximumLifetime)
        #expect(token.expiresAt == claims.exp)
    }

    @Test("the Authorization value is `vapid t=<jwt>, k=<public key base64url>`")
    func authorizationFormat() throws {
        let key = VAPIDKey.generate()
        let token = try VAPIDToken(key: key, audience: Self.origin, subject: VAPIDSubject("mailto:ops@example.com"), now: Self.now)
        #expect(token.authorization == "vapid t=\(token.jwt), k=\(key.publicKeyBase64URL)")
        #expect(Base64URL.decode(key.publicKeyBase64URL) == Array(key.publicKey.x963Representation))
        #expect(key.publicKeyBase64URL.count == 87)
    }

    @Test("the description shows 8 characters of the JWT, never all of it")
    func descriptionRedacted() throws {
        let token = try VAPIDToken(key: .generate(), audience: Self.origin, subject: VAPIDSubject("mailto:ops@example.com"), now: Self.now)
        let text = String(describing: token)
        #expect(text.contains(String(token.jwt.prefix(8)) + "…"))
        #expect(!text.contains(String(token.jwt.prefix(9))))
    }
}

@Suite("VAPID token cache")
struct VAPIDTokenCacheTests {
    /// A cache over a stepped wall clock (milliseconds), read in seconds.
    static func cache(_ clock: SteppedWallClock) throws -> VAPIDTokenCache {
        try VAPIDTokenCache(key: .generate(), subject: VAPIDSubject("mailto:ops@example.com"), clock: { clock.now / 1000 })
    }

    @Test("one origin's token is reused while an hour or more is left, then replaced by a new twelve-hour one")
    func reusedUntilAnHourIsLeft() async throws {
        let clock = SteppedWallClock()
        let cache = try Self.cache(clock)
        let first = try cache.token(for: VAPIDTokenTests.origin)
        #expect(first.expiresAt == clock.now / 1000 + 12 * 3600)
        try await clock.sleep(.seconds(11 * 3600))
        #expect(try cache.token(for: VAPIDTokenTests.origin) == first)
        try await clock.sleep(.seconds(1))
        let second = try cache.token(for: VAPIDTokenTests.origin)
        #expect(second != first)
        #expect(second.expiresAt == clock.now / 1000 + 12 * 3600)
        #expect(try cache.token(for: VAPIDTokenTests.origin) == second)
    }

    @Test("different origins get different tokens, each with its own aud")
    func tokenPerOrigin() throws {
        let cache = try Self.cache(SteppedWallClock())
        let google = try cache.token(for: "https://fcm.googleapis.com")
        let mozilla = try cache.token(for: "https://updates.push.services.mozilla.com")
        #expect(google != mozilla)
        #expect(google.audience == "https://fcm.googleapis.com")
        #expect(mozilla.audience == "https://updates.push.services.mozilla.com")
        #expect(try cache.token(for: "https://fcm.googleapis.com") == google)
    }

    @Test("a full cache starts over instead of growing past its bound of origins")
    func boundedOrigins() async throws {
        let clock = SteppedWallClock()
        let cache = try Self.cache(clock)
        let first = try cache.token(for: "https://push0.example.com")
        for number in 1...VAPIDTokenCache.maximumOrigins {
            #expect(try cache.token(for: "https://push\(number).example.com").audience == "https://push\(number).example.com")
        }
        // A second later a kept token would be the same one; the dropped one is signed anew.
        try await clock.sleep(.seconds(1))
        #expect(try cache.token(for: "https://push0.example.com").expiresAt == first.expiresAt + 1)
        #expect(try cache.token(for: "https://push\(VAPIDTokenCache.maximumOrigins).example.com").expiresAt == first.expiresAt)
    }
}
