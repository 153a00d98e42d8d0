import Foundation
import FrostboxCore
import _CryptoExtras

/// A Google service-account key (the JSON file the Firebase console hands out): who the
/// account is, which project it belongs to, where it trades assertions for access tokens, and
/// the RSA key it signs them with. Its description names the account only; the key never
/// reaches a log.
public struct FCMServiceAccount: Sendable, CustomStringConvertible {
    /// `client_email`: the assertion's `iss`.
    public let clientEmail: String
    /// `project_id`: the Firebase project messages are sent through (unless the app names another).
    public let projectID: String
    /// `token_uri`: the OAuth2 token endpoint, also the assertion's `aud`.
    public let tokenURI: String
    /// `private_key_id`, sent as the assertion's `kid` when present.
    public let privateKeyID: String?
    let privateKey: _RSA.Signing.PrivateKey

    /// Largest key file read (Google's are about 2.3 KiB).
    public static let maximumFileSize = 64 * 1024

    /// Parses the JSON of a key file; `source` names it in errors (a path, never the contents).
    public init(json: Data, source: String) throws(FCMConfigurationError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw .invalidServiceAccount(source, "not a JSON object")
        }
        func field(_ name: String) throws(FCMConfigurationError) -> String {
            guard let value = fields[name] as? String, !value.isEmpty else {
                throw .invalidServiceAccount(source, "\(name) is missing or not a string")
            }
            return value
        }
        let type = try field("type")
        guard type == "service_account" else {
            throw .invalidServiceAccount(source, "type is \(type), not service_account")
        }
        clientEmail = try field("client_email")
        projectID = try field("project_id")
        tokenURI = try field("token_uri")
        guard let uri = URL(string: tokenURI), uri.scheme == "https" || uri.scheme == "http", uri.host != nil else {
            throw .invalidServiceAccount(source, "token_uri is not an http(s) URL")
        }
        privateKeyID = fields["private_key_id"] as? String
        let pem = try field("private_key")
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw .invalidServiceAccount(source, "private_key is not a PEM RSA private key of 2048 bits or more")
        }
    }

    /// Reads a key file with `read` (which may check the file's permissions first) and parses it.
    public init(path: String, read: (String) throws -> Data = FCMServiceAccount.readFile) throws(FCMConfigurationError) {
        let data: Data
        do {
            data = try read(path)
        } catch {
            throw .unreadableFile(path, "\(error)")
        }
        guard data.count <= Self.maximumFileSize else {
            throw .invalidServiceAccount(path, "larger than \(Self.maximumFileSize) bytes")
        }
        try self.init(json: data, source: path)
    }

    /// For accounts made in memory (tests, tools).
    public init(clientEmail: String, projectID: String, tokenURI: String, privateKeyID: String? = nil, privateKey: _RSA.Signing.PrivateKey) {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.tokenURI = tokenURI
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
    }

    /// Reads a file's bytes, refusing directories and files over `maximumFileSize`.
    public static func readFile(_ path: String) throws -> Data {
        let url = URL(fileURLWithPath: path)
        let values = try url.resourceValues(forKeys: [.isDirectoryKey, .fileSizeKey])
        if values.isDirectory == true { throw FCMFileProblem("is a directory") }
        if let size = values.fileSize, size > maximumFileSize { throw FCMFileProblem("larger than \(maximumFileSize) bytes") }
        return try Data(contentsOf: url)
    }

    public var description: String { "FCMServiceAccount(\(clientEmail), project: \(projectID))" }
}

/// A key file that is there but unusable as such (a directory, too large).
struct FCMFileProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
