import Crypto
import Foundation
import FrostboxAPNs
import FrostboxCore
import MockAPNs
import Testing

@Suite("APNs provider tokens")
struct APNsProviderTokenTests {
    @Test("the JWT is ES256 with kid, iss and an integer iat, and its raw r‖s signature verifies")
    func tokenShape() throws {
        let key = APNsSigningKey(privateKey: .init(), keyID: "ABC123DEFG", teamID: "TEAM456789")
        let token = try APNsProviderToken(key: key, issuedAt: 1_800_000_000)
        let parts = token.jwt.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: try #require(decode(parts[0]))) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "ABC123DEFG"])
        let claims = String(decoding: try #require(decode(parts[1])), as: UTF8.self)
        #expect(claims == #"{"iss":"TEAM456789","iat":1800000000}"#)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(!token.description.contains(token.jwt))
        #expect(token.bearer == "bearer " + token.jwt)
    }

    @Test("a .p8 file (PKCS#8 PEM) is read; anything else is refused with a message naming no secret")
    func p8Loading() throws {
        let privateKey = P256.Signing.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-p8-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8").path
        try privateKey.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        let key = try APNsSigningKey(p8Path: path, keyID: "ABC123DEFG", teamID: "TEAM456789")
        #expect(key.publicKey.rawRepresentation == privateKey.publicKey.rawRepresentation)
        #expect(key.description == "APNsSigningKey(team: TEAM456789, key: ABC123DEFG)")

        let garbage = directory.appendingPathComponent("bad.p8").path
        try "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(throws: APNsConfigurationError.self) { try APNsSigningKey(p8Path: garbage, keyID: "ABC123DEFG", teamID: "TEAM456789") }
        #expect(throws: APNsConfigurationError.self) { try APNsSigningKey(p8Path: directory.path + "/missing.p8", keyID: "A", teamID: "B") }
        #expect(throws: APNsConfigurationError.self) { try APNsSigningKey(p8Path: path, keyID: "bad id\n", teamID: "TEAM456789") }
    }

    @Test("one token is reused by every push and connection until it is 50 minutes old, then renewed")
    func reuseAndAgeRenewal() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let start = harness.clientClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 { group.addTask { _ = await router.send(alert(to: token("a1", index))) } }
        }
        harness.clientClock.advance(minutes: 49)
        harness.mockClock.advance(minutes: 49)
        let beforeRenewal = alert(to: token("a1", 100))
        #expect(await router.send(beforeRenewal) == .delivered(messageID: beforeRenewal.messageID))
        harness.clientClock.advance(minutes: 2)
        harness.mockClock.advance(minutes: 2)
        _ = await router.send(alert(to: token("a1", 101)))

        let issuedAt = await harness.mock.deliveries().map { $0.tokenIssuedAt ?? -1 }
        #expect(issuedAt.count == 52)
        #expect(issuedAt.prefix(51).allSatisfy { $0 == start })
        #expect(issuedAt.last == start + 51 * 60)
        #expect(await harness.mock.counters().providerTokens == 2)
        try await harness.stop(router)
    }

    @Test("ExpiredProviderToken renews the token (20 minutes after the last one) and retries once")
    func renewalOnExpired() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        let start = harness.clientClock.now
        _ = await router.send(alert(to: token("a1", 1)))
        // APNs' clock says the token is over an hour old; ours says 25 minutes.
        harness.clientClock.advance(minutes: 25)
        harness.mockClock.advance(minutes: 61)
        let push = alert(to: token("a1", 2))
        #expect(await router.send(push) == .delivered(messageID: push.messageID))
        let deliveries = await harness.mock.deliveries()
        #expect(deliveries.map(\.tokenIssuedAt) == [start, start + 25 * 60])
        let counters = await harness.mock.counters()
        #expect(counters.rejected["ExpiredProviderToken"] == 1)
        #expect(counters.requests == 3)
        #expect(harness.sleeper.recorded.isEmpty)
        try await harness.stop(router)
    }

    @Test("ExpiredProviderToken within 20 minutes of the last token: no new token, one retry, then temporary")
    func noRenewalWithinTwentyMinutes() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        _ = await router.send(alert(to: token("a1", 1)))
        harness.clientClock.advance(minutes: 10)
        harness.mockClock.advance(minutes: 61)
        #expect(await router.send(alert(to: token("a1", 2))) == .temporaryFailure(reason: "ExpiredProviderToken"))
        let counters = await harness.mock.counters()
        #expect(counters.rejected["ExpiredProviderToken"] == 2)
        #expect(counters.providerTokens == 1)
        #expect(router.client(for: APNsHarness.bundleID)?.stopped == nil)
        try await harness.stop(router)
    }

    @Test("apps signing with the same team key share one token")
    func sharedAcrossApps() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router([harness.app(), harness.app(APNsHarness.otherBundleID)])
        _ = await router.send(alert(to: token("a1", 1)))
        _ = await router.send(alert(to: token("a1", 2), topic: APNsHarness.otherBundleID))
        let deliveries = await harness.mock.deliveries()
        #expect(deliveries.map(\.topic) == [APNsHarness.bundleID, APNsHarness.otherBundleID])
        #expect(await harness.mock.counters().providerTokens == 1)
        try await harness.stop(router)
    }

    private func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }
}
