import Crypto
import Foundation

/// The receiving side of RFC 8291 (what a browser does), written from the RFC for the double:
/// the sender's key and salt from the `aes128gcm` header, the shared secret, the two HKDF
/// steps, and AES-128-GCM opened; one record, its padding removed.
enum MockWebPushDecryption {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func decrypt(_ body: [UInt8], receiver: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        guard body.count >= 86 + 16 else { throw Failure(description: "body shorter than a header and a tag") }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        guard body[20] == 65 else { throw Failure(description: "idlen \(body[20]), not 65") }
        guard recordSize >= body.count - 86 else { throw Failure(description: "more than one record") }
        let senderPublic = try P256.KeyAgreement.PublicKey(x963Representation: body[21..<86])
        let shared = try receiver.sharedSecretFromKeyAgreement(with: senderPublic)
        let receiverPublic = receiver.publicKey.x963Representation
        let keyInfo = Array("WebPush: info".utf8) + [0] + Array(receiverPublic) + Array(senderPublic.x963Representation)
        let ikm = shared.withUnsafeBytes { secret in
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: auth, info: keyInfo, outputByteCount: 32)
        }
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let sealed = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }), ciphertext: body[86..<(body.count - 16)],
            tag: body[(body.count - 16)...])
        var plain = Array(try AES.GCM.open(sealed, using: cek))
        // The last record ends with 0x02 and any number of zero bytes of padding.
        while plain.last == 0 { plain.removeLast() }
        guard plain.last == 2 else { throw Failure(description: "no last-record delimiter") }
        plain.removeLast()
        return plain
    }
}
