import Crypto
import Testing

@testable import FrostboxWebPush

/// The encryption's own parts against swift-crypto's: the HMAC written out for speed is
/// swift-crypto's HMAC-SHA-256, and each message draws its own key and salt.
@Suite("Web Push encryption parts")
struct WebPushEncryptionPartsTests {
    @Test("the HMAC is HMAC<SHA256>'s for the keys it is used with (16 and 32 bytes) and messages of every length up to two blocks")
    func hmacIsTheLibrarys() {
        var generator = SystemRandomNumberGenerator()
        for keyCount in [0, 16, 32, 64] {
            for messageCount in [0, 1, 55, 56, 63, 64, 65, 100, 128] {
                let key = (0..<keyCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let message = (0..<messageCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let ours = message.withUnsafeBytes { WebPushEncryption.hmac(key: key, $0) }
                let library = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
                #expect(ours == library, "key \(keyCount) bytes, message \(messageCount)")
            }
        }
    }

    @Test("every message gets a key pair and a 16-byte salt of its own")
    func freshKeyAndSalt() {
        let drawn = (0..<200).map { _ in WebPushEncryption.randomSenderKeyAndSalt() }
        #expect(drawn.allSatisfy { $0.1.count == 16 })
        #expect(Set(drawn.map { $0.0.publicKey.x963Representation }).count == 200)
        #expect(Set(drawn.map(\.1)).count == 200)
    }
}
