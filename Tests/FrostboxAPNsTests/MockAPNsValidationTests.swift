import AsyncHTTPClient
import Crypto
import Foundation
import FrostboxAPNs
import MockAPNs
import NIOCore
import NIOSSL
import Testing

/// The double itself: it must refuse what APNs refuses, with APNs' status and reason, since
/// the client's tests lean on it.
@Suite("mock-apns validates like APNs")
struct MockAPNsValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var get = false
        var path = "/3/device/" + String(repeating: "ab", count: 32)
        var headers: [(String, String)] = []
        var body = #"{"aps":{"alert":"hi"}}"#
        var claims: String? = nil
        var withoutAuthorization = false
        var status: Int
        var reason: String?

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "accepted", status: 200),
        Case(name: "GET", get: true, status: 405, reason: "MethodNotAllowed"),
        Case(name: "path", path: "/3/devices/abcd", status: 404, reason: "BadPath"),
        Case(name: "odd token", path: "/3/device/abc", status: 400, reason: "BadDeviceToken"),
        Case(name: "non-hex token", path: "/3/device/" + String(repeating: "zz", count: 32), status: 400, reason: "BadDeviceToken"),
        Case(name: "no authorization", withoutAuthorization: true, status: 403, reason: "MissingProviderToken"),
        Case(name: "iat as a float", claims: #"{"iss":"TEAM123456","iat":1800000000.5}"#, status: 403, reason: "InvalidProviderToken"),
        Case(name: "iat as a string", claims: #"{"iss":"TEAM123456","iat":"1800000000"}"#, status: 403, reason: "InvalidProviderToken"),
        Case(name: "other team", claims: #"{"iss":"OTHER12345","iat":1800000000}"#, status: 403, reason: "InvalidProviderToken"),
        Case(name: "token over an hour old", claims: #"{"iss":"TEAM123456","iat":1799996399}"#, status: 403, reason: "ExpiredProviderToken"),
        Case(name: "no topic", headers: [("apns-topic", "")], status: 400, reason: "MissingTopic"),
        Case(name: "push type", headers: [("apns-push-type", "shout")], status: 400, reason: "InvalidPushType"),
        Case(name: "priority", headers: [("apns-priority", "7")], status: 400, reason: "BadPriority"),
        Case(name: "background at priority 10", headers: [("apns-push-type", "background"), ("apns-priority", "10")], status: 400, reason: "BadPriority"),
        Case(name: "expiration", headers: [("apns-expiration", "-1")], status: 400, reason: "BadExpirationDate"),
        Case(name: "collapse id of 65 bytes", headers: [("apns-collapse-id", String(repeating: "c", count: 65))], status: 400, reason: "BadCollapseId"),
        Case(name: "apns-id", headers: [("apns-id", "42")], status: 400, reason: "BadMessageId"),
        Case(
            name: "payload of 4,097 bytes", body: #"{"aps":{"alert":""# + String(repeating: "x", count: 4097 - 20) + #""}}"#, status: 413,
            reason: "PayloadTooLarge"),
        Case(name: "empty payload", body: "", status: 400, reason: "PayloadEmpty"),
        Case(name: "payload without aps", body: #"{"alert":"hi"}"#, status: 400, reason: "BadPayload"),
        Case(name: "payload not JSON", body: "hi", status: 400, reason: "BadPayload"),
    ]

    @Test("status and reason", arguments: cases)
    func validation(_ testCase: Case) async throws {
        let key = P256.Signing.PrivateKey()
        var configuration = MockAPNsSettings()
        configuration.signingKeys["KEY1234567"] = .init(teamID: "TEAM123456", publicKey: key.publicKey)
        configuration.clock = { 1_800_000_000 }
        let mock = try await MockAPNsServer.start(configuration)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(mock.certificatePath))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))

        var request = HTTPClientRequest(url: "https://127.0.0.1:\(mock.port)\(testCase.path)")
        request.method = testCase.get ? .GET : .POST
        var headers: [(String, String)] = [("apns-topic", "com.example.frost"), ("apns-push-type", "alert")]
        for (name, value) in testCase.headers {
            headers.removeAll { $0.0 == name }
            if !value.isEmpty { headers.append((name, value)) }
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if !testCase.withoutAuthorization {
            let claims = testCase.claims ?? #"{"iss":"TEAM123456","iat":1800000000}"#
            request.headers.add(name: "authorization", value: "bearer " + (try jwt(claims: claims, key: key)))
        }
        if !testCase.get {
            request.body = .bytes(ByteBuffer(string: testCase.body))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 4096)
        #expect(Int(response.status.code) == testCase.status)
        if let reason = testCase.reason {
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            #expect(json?["reason"] as? String == reason)
        }
        try await client.shutdown()
        try await mock.stop()
    }

    private func jwt(claims: String, key: P256.Signing.PrivateKey) throws -> String {
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let input = encode(Data(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8)) + "." + encode(Data(claims.utf8))
        return input + "." + encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }
}
