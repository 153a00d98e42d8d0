import Crypto
import Foundation

/// A token-authentication key from Apple's developer portal: the P-256 private key of a
/// `.p8` file (PKCS#8 PEM), its 10-character key id and the team id that owns it.
/// Its description names the ids only; the key itself never reaches a log.
public struct APNsSigningKey: Sendable, CustomStringConvertible {
    /// The key id (`kid` of the JWT header).
    public let keyID: String
    /// The team id (`iss` of the JWT claims).
    public let teamID: String
    let privateKey: P256.Signing.PrivateKey

    /// Parses a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) P-256 key.
    public init(pemRepresentation: String, keyID: String, teamID: String) throws(APNsConfigurationError) {
        guard Self.isIdentifier(keyID) else { throw .invalidSigningKey("key id must be 10 letters or digits") }
        guard Self.isIdentifier(teamID) else { throw .invalidSigningKey("team id must be 10 letters or digits") }
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pemRepresentation)
        } catch {
            throw .invalidSigningKey("key \(keyID) is not a PKCS#8 PEM P-256 private key")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads a `.p8` file from disk.
    public init(p8Path: String, keyID: String, teamID: String) throws(APNsConfigurationError) {
        guard let data = FileManager.default.contents(atPath: p8Path), let pem = String(data: data, encoding: .utf8) else {
            throw .unreadableFile(p8Path)
        }
        try self.init(pemRepresentation: pem, keyID: keyID, teamID: teamID)
    }

    /// For keys made in memory (tests, tools).
    public init(privateKey: P256.Signing.PrivateKey, keyID: String, teamID: String) {
        self.privateKey = privateKey
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The public half, for servers (and the mock) that verify our tokens.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    public var description: String { "APNsSigningKey(team: \(teamID), key: \(keyID))" }

    /// Apple's ids are 10 upper-case letters or digits; we accept any short alphanumeric id so
    /// that test keys can be named freely, but refuse what could break a header.
    private static func isIdentifier(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 64
            && value.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
