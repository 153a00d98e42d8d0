import Foundation
import _CryptoExtras

/// A service account made for tests: a fresh RSA key and the JSON key file Google would hand
/// out for it, pointing its `token_uri` at a double.
public struct MockFCMServiceAccount: Sendable {
    public var clientEmail: String
    public var projectID: String
    public var tokenURI: String
    public var privateKeyID: String
    public var privateKey: _RSA.Signing.PrivateKey

    /// Makes a 2048-bit key.
    public init(clientEmail: String = "frostbox@mock-project.iam.gserviceaccount.com", projectID: String = "mock-project", tokenURI: String) throws {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.tokenURI = tokenURI
        self.privateKeyID = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        self.privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// What the double needs to know of it.
    public var known: MockFCMSettings.KnownAccount { .init(projectID: projectID, publicKey: privateKey.publicKey) }

    /// The key file's JSON, in Google's layout (PKCS#8 PEM key).
    public var json: Data {
        let fields: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": privateKeyID,
            "private_key": privateKey.pkcs8PEMRepresentation, "client_email": clientEmail, "client_id": "100000000000000000001",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        return (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .prettyPrinted])) ?? Data()
    }

    /// Writes the key file (mode 0600, as a key file should be) and returns its path.
    @discardableResult
    public func write(to path: String) throws -> String {
        guard FileManager.default.createFile(atPath: path, contents: json, attributes: [.posixPermissions: 0o600]) else {
            throw MockFCMError("cannot write \(path)")
        }
        return path
    }
}
