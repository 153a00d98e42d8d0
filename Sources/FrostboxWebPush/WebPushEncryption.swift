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
    /// The CEK's and the nonce's HKDF info, each with the first block's counter (0x01).
    private static let contentEncryptionKeyInfo = Array("Content-Encoding: aes128gcm\0\u{1}".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0\u{1}".utf8)
    /// RFC 8188 §2: the padding delimiter of the last record (no padding follows it).
    private static let lastRecordDelimiter: UInt8 = 0x02

    /// Encrypts `plaintext` with a fresh sender key pair and a fresh random salt from
    /// `senderKeys`, as every message must be.
    package static func encrypt(
        _ plaintext: some Collection<UInt8>, for subscriber: WebPushSubscriberKeys, senderKeys: WebPushSenderKeys
    ) throws(WebPushEncryptionError) -> [UInt8] {
        let (senderKey, salt) = senderKeys.next()
        return try encrypt(plaintext, for: subscriber, senderKey: senderKey, salt: salt)
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

        let senderPublicKey = Array(senderKey.publicKey.x963Representation)
        let sharedSecret: SharedSecret
        do {
            sharedSecret = try senderKey.sharedSecretFromKeyAgreement(with: subscriber.p256dh)
        } catch {
            throw .cryptographyFailed("ECDH")
        }

        // RFC 8291 §3.3–3.4: IKM = HKDF(salt: auth_secret, IKM: ecdh_secret,
        // info: "WebPush: info" 0x00 ‖ ua_public ‖ as_public, L: 32). Every output here fits in
        // one SHA-256 block, so each HKDF is its two HMACs: PRK = HMAC(salt, IKM), then
        // OKM = HMAC(PRK, info ‖ 0x01) cut to L (RFC 5869 §2.2–2.3).
        var keyInfo: [UInt8] = []
        keyInfo.reserveCapacity(keyInfoLabel.count + 2 * WebPushSubscriberKeys.publicKeyCount + 1)
        keyInfo += keyInfoLabel
        keyInfo += subscriber.publicKeyBytes
        keyInfo += senderPublicKey
        keyInfo.append(0x01)
        let authKey = sharedSecret.withUnsafeBytes { hmac(key: subscriber.auth, $0) }
        let inputKeyingMaterial = keyInfo.withUnsafeBytes { hmac(key: authKey, $0) }

        // RFC 8188 §2.2–2.3: PRK = HKDF-Extract(salt, IKM); CEK and NONCE expanded from it. The
        // only record has sequence number 0, so its nonce is NONCE itself.
        let pseudoRandomKey = inputKeyingMaterial.withUnsafeBytes { hmac(key: salt, $0) }
        let contentEncryptionKey = SymmetricKey(data: contentEncryptionKeyInfo.withUnsafeBytes { hmac(key: pseudoRandomKey, $0) }.prefix(16))
        let nonceKey = nonceInfo.withUnsafeBytes { hmac(key: pseudoRandomKey, $0) }.prefix(12)

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
            let nonce = try AES.GCM.Nonce(data: nonceKey)
            sealed = try AES.GCM.seal(body[headerCount...], using: contentEncryptionKey, nonce: nonce)
        } catch {
            throw .cryptographyFailed("AES-128-GCM")
        }
        body.replaceSubrange(headerCount..., with: sealed.ciphertext)
        body += sealed.tag
        return body
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under a key of at most 64 bytes (here 16 or 32),
    /// with swift-crypto's SHA-256. Written out rather than `HMAC<SHA256>`: its generic key
    /// set-up cost more than the hashing for these short inputs (docs/benchmarks.md, "Web Push
    /// sends"). The RFC 8291 example's body, checked byte for byte, covers every use. The
    /// derived keys live in plain arrays, not zeroed on release as `SymmetricKey` is: they
    /// protect one message whose plaintext sits in plain arrays as well.
    static func hmac(key: [UInt8], _ message: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(key.count <= 64, "an HMAC key longer than a SHA-256 block must be hashed first")
        // One pad on the stack, the inner then the outer (0x5c ⊕ k = 0x36 ⊕ k ⊕ 0x6a), hashed
        // from its bytes: no arrays for the pads, no generic `DataProtocol` walk.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { pad in
            pad.initialize(repeating: 0x36)
            for (index, byte) in key.enumerated() { pad[index] ^= byte }
            var hash = SHA256()
            hash.update(bufferPointer: UnsafeRawBufferPointer(pad))
            hash.update(bufferPointer: message)
            let innerDigest = hash.finalize()
            for index in pad.indices { pad[index] ^= 0x36 ^ 0x5c }
            hash = SHA256()
            hash.update(bufferPointer: UnsafeRawBufferPointer(pad))
            innerDigest.withUnsafeBytes { hash.update(bufferPointer: $0) }
            return hash.finalize().withUnsafeBytes { Array($0) }
        }
    }
}
