import FrostboxPushEngine
import NIOSSL

/// A TLS client certificate and its private key, for certificate-based provider
/// authentication (the alternative to provider tokens that older providers used).
/// Its description names the certificate's subject only.
public struct APNsClientIdentity: Sendable, CustomStringConvertible {
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// Loads a PEM certificate (chain) file and a PEM private key file.
    public init(certificatePEMPath: String, privateKeyPEMPath: String) throws(APNsConfigurationError) {
        do {
            certificateChain = try NIOSSLCertificate.fromPEMFile(certificatePEMPath)
        } catch {
            throw .invalidCertificate("\(certificatePEMPath) holds no PEM certificate")
        }
        guard !certificateChain.isEmpty else { throw .invalidCertificate("\(certificatePEMPath) holds no PEM certificate") }
        do {
            privateKey = try NIOSSLPrivateKey(file: privateKeyPEMPath, format: .pem)
        } catch {
            throw .invalidCertificate("\(privateKeyPEMPath) holds no PEM private key")
        }
    }

    /// Loads a PKCS#12 (`.p12`) bundle as exported by Keychain Access.
    public init(p12Path: String, passphrase: String) throws(APNsConfigurationError) {
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(file: p12Path, passphrase: Array(passphrase.utf8))
        } catch {
            throw .invalidCertificate("\(p12Path) is not a readable PKCS#12 bundle (wrong passphrase?)")
        }
        guard !bundle.certificateChain.isEmpty else { throw .invalidCertificate("\(p12Path) holds no certificate") }
        certificateChain = bundle.certificateChain
        privateKey = bundle.privateKey
    }

    /// From PEM text already in memory.
    public init(certificatePEM: String, privateKeyPEM: String) throws(APNsConfigurationError) {
        do {
            certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
            privateKey = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        } catch {
            throw .invalidCertificate("PEM certificate or key could not be parsed")
        }
        guard !certificateChain.isEmpty else { throw .invalidCertificate("no PEM certificate") }
    }

    /// The chain and key as the push engine's TLS set-up takes them.
    var tls: HTTP2ClientIdentity { HTTP2ClientIdentity(certificateChain: certificateChain, privateKey: privateKey) }

    /// Identifies the connection pool: apps with the same certificate share connections.
    var poolKey: String {
        certificateChain.first.map { String(describing: $0) } ?? ""
    }

    public var description: String {
        "APNsClientIdentity(\(certificateChain.count) certificate(s))"
    }
}
