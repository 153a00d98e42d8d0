import Crypto
import FrostboxCore

/// Encrypts a push message for one subscriber as RFC 8291 prescribes, in the `aes128gcm`
/// content coding of RFC 8188: a single record whose header carries the salt, the record
/// size and the sender's ephemeral public key, then the AES-128-GCM ciphertext and its tag.
/// The body is the request body sent to the push service (`Content-Encoding: aes128gcm`).
package enum WebPushEncryption {
    /// The record size written in the header (`rs`), and the most a body may weigh.
    package static let recordSize = 4096
    /// salt(16) ‖ rs(4) ‖ idlen(1) ‖ keyid(65, the sender's uncompressed public key).
    package static let headerCount = 16 + 4 + 1 + WebPushSubscriberKeys.publicKeyCount
    /// The AES-GCM authentication tag appended to the record.
    package static let tagCount = 16
    /// The number of bytes of the salt.
    package static let saltCount = 16
    /// The longest plaintext that keeps the body within `recordSize`: the header, the
    /// last-record delimiter (one byte) and the tag take the rest.
    package static let maximumPlaintextCount = recordSize - headerCount - 1 - tagCount

    private static let keyInfoLabel = Array("WebPush: info\0".utf8)
    private static let contentEncryptionKeyInfo = Array("Content-Encoding: aes128gcm\0".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)
    /// RFC 8188 §2: the padding delimiter of the last record (no padding follows it).
    private static let lastRecordDelimiter: UInt8 = 0x02

    /// Encrypts `plaintext` with a fresh sender key pair and a fresh random salt, as every
    /// message must be.
    package static func encrypt(_ plaintext: some Collection<UInt8>, for subscriber: WebPushSubscriberKeys) throws(WebPushEncryptionError) -> [UInt8] {
        try encrypt(plaintext, for: subscriber, senderKey: P256.KeyAgreement.PrivateKey(), salt: randomSalt())
    }

    /// Encrypts `plaintext` with the given sender key and 16-byte salt. Reusing either for two
    /// messages breaks the encryption: this form is for known-answer tests.
    package static func encrypt(
        _ plaintext: some Collection<UInt8>,
        for subscriber: WebPushSubscriberKeys,
        senderKey: P256.KeyAgreement.PrivateKey,
        salt: [UInt8]
    ) throws(WebPushEncryptionError) -> [UInt8] {
        let plaintextCount = plaintext.count
        guard plaintextCount <= maximumPlaintextCount else {
            throw .plaintextTooLarge(count: plaintextCount, limit: maximumPlaintextCount)
        }
        guard salt.count == saltCount else { throw .invalidSalt(count: salt.count) }

        let senderPublicKey = senderKey.publicKey.x963Representation
        let sharedSecret: SharedSecret
        do {
            sharedSecret = try senderKey.sharedSecretFromKeyAgreement(with: subscriber.p256dh)
        } catch {
            throw .cryptographyFailed("ECDH")
        }

        // RFC 8291 §3.3–3.4: IKM = HKDF(salt: auth_secret, IKM: ecdh_secret,
        // info: "WebPush: info" 0x00 ‖ ua_public ‖ as_public, L: 32).
        var keyInfo: [UInt8] = []
        keyInfo.reserveCapacity(keyInfoLabel.count + 2 * WebPushSubscriberKeys.publicKeyCount)
        keyInfo += keyInfoLabel
        keyInfo += subscriber.publicKeyBytes
        keyInfo += senderPublicKey
        let inputKeyingMaterial = sharedSecret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: subscriber.auth, sharedInfo: keyInfo, outputByteCount: 32)

        // RFC 8188 §2.2–2.3: PRK = HKDF-Extract(salt, IKM); CEK and NONCE expanded from it. The
        // only record has sequence number 0, so its nonce is NONCE itself.
        let pseudoRandomKey = HKDF<SHA256>.extract(inputKeyMaterial: inputKeyingMaterial, salt: salt)
        let contentEncryptionKey = HKDF<SHA256>.expand(pseudoRandomKey: pseudoRandomKey, info: contentEncryptionKeyInfo, outputByteCount: 16)
        let nonceKey = HKDF<SHA256>.expand(pseudoRandomKey: pseudoRandomKey, info: nonceInfo, outputByteCount: 12)

        // The body is built in one buffer: the header, then plaintext ‖ delimiter, which the
        // ciphertext (of the same length) then overwrites in place, then the tag.
        var body: [UInt8] = []
        body.reserveCapacity(headerCount + plaintextCount + 1 + tagCount)
        body += salt
        withUnsafeBytes(of: UInt32(recordSize).bigEndian) { body += $0 }
        body.append(UInt8(WebPushSubscriberKeys.publicKeyCount))
        body += senderPublicKey
        body += plaintext
        body.append(lastRecordDelimiter)

        let sealed: AES.GCM.SealedBox
        do {
            let nonce = try nonceKey.withUnsafeBytes { bytes in try AES.GCM.Nonce(data: bytes) }
            sealed = try AES.GCM.seal(body[headerCount...], using: contentEncryptionKey, nonce: nonce)
        } catch {
            throw .cryptographyFailed("AES-128-GCM")
        }
        body.replaceSubrange(headerCount..., with: sealed.ciphertext)
        body += sealed.tag
        return body
    }

    /// 16 bytes from the system's cryptographically secure generator.
    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let words: (UInt64, UInt64) = (generator.next(), generator.next())
        return withUnsafeBytes(of: words) { Array($0) }
    }
}
