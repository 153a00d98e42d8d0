import Foundation
import FrostboxCore
import FrostboxFCM
import MockFCM
import Synchronization
import Testing
import _CryptoExtras

@Suite("FCM service account and assertion")
struct FCMCredentialsTests {
    static let mockAccount = Mutex<MockFCMServiceAccount?>(nil)

    /// One RSA key for the suite (generating one costs a moment in a debug build).
    static func account() throws -> MockFCMServiceAccount {
        try mockAccount.withLock { cached in
            if let cached { return cached }
            let made = try MockFCMServiceAccount(tokenURI: "https://oauth2.example.test/token")
            cached = made
            return made
        }
    }

    @Test("a Google-style key file parses: account, project, token URI, key id")
    func parses() throws {
        let mock = try Self.account()
        let account = try FCMServiceAccount(json: mock.json, source: "test.json")
        #expect(account.clientEmail == mock.clientEmail)
        #expect(account.projectID == "mock-project")
        #expect(account.tokenURI == "https://oauth2.example.test/token")
        #expect(account.privateKeyID == mock.privateKeyID)
        #expect(!"\(account)".contains("PRIVATE"))
    }

    @Test("a broken key file says what is wrong and never quotes the key")
    func refusals() throws {
        let mock = try Self.account()
        var fields = try #require(try JSONSerialization.jsonObject(with: mock.json) as? [String: String])
        func attempt(_ change: ([String: String]) -> [String: String]) -> String {
            let data = try! JSONSerialization.data(withJSONObject: change(fields))
            do {
                _ = try FCMServiceAccount(json: data, source: "key.json")
                return "accepted"
            } catch {
                return error.message
            }
        }
        #expect(attempt { $0.merging(["type": "authorized_user"]) { $1 } }.contains("type is authorized_user"))
        #expect(attempt { $0.filter { $0.key != "client_email" } }.contains("client_email is missing"))
        #expect(attempt { $0.merging(["token_uri": "not a url"]) { $1 } }.contains("token_uri"))
        let broken = attempt { $0.merging(["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"]) { $1 } }
        #expect(broken.contains("private_key is not a PEM RSA private key"))
        #expect(!broken.contains("AAAA"))
        fields["private_key"] = nil
        #expect(attempt { _ in fields }.contains("private_key is missing"))
        #expect(throws: FCMConfigurationError.self) { try FCMServiceAccount(json: Data("[]".utf8), source: "x") }
    }

    @Test("the assertion is RS256 over Google's claims, exp one hour after iat")
    func assertion() throws {
        let mock = try Self.account()
        let account = try FCMServiceAccount(json: mock.json, source: "test.json")
        let assertion = try FCMAssertion(account: account, now: 1_800_000_000)
        let parts = assertion.compact.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decode(_ part: String) throws -> [String: Any] {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            let data = try #require(Data(base64Encoded: base64))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let header = try decode(parts[0])
        #expect(header["alg"] as? String == "RS256")
        #expect(header["kid"] as? String == mock.privateKeyID)
        let claims = try decode(parts[1])
        #expect(claims["iss"] as? String == mock.clientEmail)
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["aud"] as? String == "https://oauth2.example.test/token")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_800_000_000)
        #expect((claims["exp"] as? NSNumber)?.int64Value == 1_800_003_600)
        var signature = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        let valid = mock.privateKey.publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: try #require(Data(base64Encoded: signature))),
            for: Data((parts[0] + "." + parts[1]).utf8), padding: .insecurePKCS1v1_5)
        #expect(valid)
        #expect(assertion.formBody.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"))
        #expect(!"\(assertion)".contains(parts[1]))
    }

    @Test("settings resolve the project from the file unless given, and refuse bad values")
    func settings() throws {
        let mock = try Self.account()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try mock.write(to: directory + "/sa.json")
        let app = try FCMAppSettings(packageName: "com.example.frost", serviceAccountPath: path).load()
        #expect(app.projectID == "mock-project")
        #expect(app.sendURL == "https://fcm.googleapis.com/v1/projects/mock-project/messages:send")
        let other = try FCMAppSettings(packageName: "com.example.frost", serviceAccountPath: path, projectID: "other", url: "https://127.0.0.1:1/").load()
        #expect(other.sendURL == "https://127.0.0.1:1/v1/projects/other/messages:send")
        #expect(throws: FCMConfigurationError.self) { try FCMAppSettings(packageName: "com example", serviceAccountPath: path).load() }
        #expect(throws: FCMConfigurationError.self) { try FCMAppSettings(packageName: "a", serviceAccountPath: path, url: "ftp://x").load() }
        do {
            _ = try FCMAppSettings(packageName: "com.example.frost", serviceAccountPath: directory + "/missing.json").load()
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.message.hasPrefix("FCM app com.example.frost: cannot read FCM service-account file \(directory)/missing.json"))
        }
    }
}
