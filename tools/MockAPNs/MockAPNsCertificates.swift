import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Self-signed P-256 certificates for the double: the server's (valid for 127.0.0.1, ::1 and
/// localhost) and, for certificate-auth tests, clients'.
public enum MockAPNsCertificates {
    /// A certificate and key, both PEM.
    public struct Issued: Sendable {
        public var certificatePEM: String
        public var privateKeyPEM: String
    }

    /// A server certificate for the loopback names.
    public static func makeServerCertificate() throws -> Issued {
        try make(
            commonName: "mock-apns",
            sans: [
                .dnsName("localhost"),
                .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
            ], usage: .serverAuth)
    }

    /// A client certificate like Apple's push certificates: the bundle id as the subject's
    /// common name (Apple also sets it as UID).
    public static func makeClientCertificate(bundleID: String) throws -> Issued {
        try make(commonName: bundleID, sans: [], usage: .clientAuth)
    }

    private static func make(commonName: String, sans: [GeneralName], usage: ExtendedKeyUsage.Usage) throws -> Issued {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([usage])
                if !sans.isEmpty {
                    SubjectAlternativeNames(sans)
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return Issued(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
    }
}

extension MockAPNsSettings.TrustedCertificate {
    /// Loads a PEM client certificate; with no topics given, its subject's common name (the
    /// bundle id, on Apple's push certificates) is the one topic it may push to.
    public init(pemPath: String, topics: Set<String> = []) throws {
        let pem = try String(contentsOfFile: pemPath, encoding: .utf8)
        let parsed = try Certificate(pemEncoded: pem)
        var topics = topics
        if topics.isEmpty {
            for rdn in parsed.subject {
                for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                    topics.insert(String(describing: attribute.value))
                }
            }
        }
        guard let certificate = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)).first else {
            throw MockAPNsError("no certificate in \(pemPath)")
        }
        self.init(certificate: certificate, topics: topics)
    }
}
