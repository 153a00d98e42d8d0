import Crypto
import Synchronization
import Testing

@testable import FrostboxWebPush

/// The encryption's own parts against swift-crypto's: the HMAC written out for speed is
/// swift-crypto's HMAC-SHA-256, and each message draws its own key and salt (from blocks of
/// the system's generator).
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

    @Test("every message gets a key pair and a 16-byte salt of its own, over several draws of the system's generator")
    func freshKeyAndSalt() {
        let senderKeys = WebPushSenderKeys()
        let count = WebPushSenderKeys.messagesPerDraw * 3 + 5
        let drawn = (0..<count).map { _ in senderKeys.next() }
        #expect(drawn.allSatisfy { $0.salt.count == 16 })
        #expect(Set(drawn.map { $0.key.publicKey.x963Representation }).count == count)
        #expect(Set(drawn.map(\.salt)).count == count)
    }

    @Test("one draw of the source serves messagesPerDraw messages, each its own 48 bytes in order: scalar, then salt")
    func oneDrawPerBlock() throws {
        let draws = Mutex(0)
        // Byte i of draw d is d·31 + i·7 (mod 256, never a scalar BoringSSL refuses here).
        let senderKeys = WebPushSenderKeys { buffer in
            let draw = draws.withLock { count in
                count += 1
                return count
            }
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: draw &* 31 &+ index &* 7) }
            return true
        }
        for message in 0..<(WebPushSenderKeys.messagesPerDraw + 1) {
            let (key, salt) = senderKeys.next()
            let draw = message / WebPushSenderKeys.messagesPerDraw + 1
            let start = (message % WebPushSenderKeys.messagesPerDraw) * 48
            let expected = (start..<start + 48).map { UInt8(truncatingIfNeeded: draw &* 31 &+ $0 &* 7) }
            #expect(Array(key.rawRepresentation) == Array(expected[0..<32]), "message \(message)")
            #expect(salt == Array(expected[32...]), "message \(message)")
        }
        #expect(draws.withLock { $0 } == 2)
    }

    @Test("a scalar BoringSSL refuses (zero, or not below the group order) is skipped for the next 48 bytes")
    func refusedScalarDrawnAgain() {
        // The first message's 48 bytes are 0xff (a scalar above the order), the rest 0x01.
        let senderKeys = WebPushSenderKeys { buffer in
            for index in buffer.indices { buffer[index] = index < 48 ? 0xff : 0x01 }
            return true
        }
        let (key, salt) = senderKeys.next()
        #expect(Array(key.rawRepresentation) == [UInt8](repeating: 0x01, count: 32))
        #expect(salt == [UInt8](repeating: 0x01, count: 16))
    }

    @Test("a source that fails leaves the keys to swift-crypto's generator: still fresh")
    func failingSourceFallsBack() {
        let senderKeys = WebPushSenderKeys { buffer in
            for index in buffer.indices { buffer[index] = 0x01 }
            return false
        }
        let drawn = (0..<3).map { _ in senderKeys.next() }
        #expect(Set(drawn.map { $0.key.rawRepresentation }).count == 3)
        #expect(!drawn.contains { $0.salt == [UInt8](repeating: 0x01, count: 16) })
    }
}
