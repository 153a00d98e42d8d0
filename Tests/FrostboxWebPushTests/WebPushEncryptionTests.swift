import Crypto
import FrostboxCore
import FrostboxWebPush
import Testing

/// RFC 8291 Appendix A: the one worked example of the standard, every value as the RFC prints it.
enum RFC8291Example {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let senderPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublicKey = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let receiverPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
        + "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
        + "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text)) }
}

@Suite("Web Push encryption (RFC 8291, aes128gcm)")
struct WebPushEncryptionTests {
    static func subscriber() throws -> WebPushSubscriberKeys {
        try WebPushSubscriberKeys(p256dh: RFC8291Example.receiverPublicKey, auth: RFC8291Example.authSecret)
    }

    @Test("the RFC 8291 Appendix A example encrypts to the RFC's body byte for byte")
    func rfcExampleByteForByte() throws {
        let senderKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: RFC8291Example.bytes(RFC8291Example.senderPrivateKey))
        #expect(Base64URL.encode(senderKey.publicKey.x963Representation) == RFC8291Example.senderPublicKey)
        let body = try WebPushEncryption.encrypt(
            Array(RFC8291Example.plaintext.utf8), for: Self.subscriber(), senderKey: senderKey, salt: RFC8291Example.bytes(RFC8291Example.salt))
        #expect(Base64URL.encode(body) == RFC8291Example.body)
        #expect(body == (try RFC8291Example.bytes(RFC8291Example.body)))
    }

    @Test("a fresh body's header holds a new salt, rs 4096, idlen 65 and a new sender key each time")
    func freshHeader() throws {
        let plaintext = Array("frost tonight".utf8)
        let senderKeys = WebPushSenderKeys()
        let first = try WebPushEncryption.encrypt(plaintext, for: Self.subscriber(), senderKeys: senderKeys)
        let second = try WebPushEncryption.encrypt(plaintext, for: Self.subscriber(), senderKeys: senderKeys)
        for body in [first, second] {
            #expect(body.count == WebPushEncryption.headerCount + plaintext.count + 1 + 16)
            #expect(Array(body[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
            #expect(body[21] == 0x04)
            // The keyid is a point on the curve.
            _ = try P256.KeyAgreement.PublicKey(x963Representation: body[21..<86])
        }
        #expect(first[0..<16] != second[0..<16])
        #expect(first[21..<86] != second[21..<86])
    }

    @Test("3,993 bytes of plaintext make a body of exactly 4,096 bytes")
    func largestPlaintextFillsTheRecord() throws {
        #expect(WebPushEncryption.maximumPlaintextCount == 3993)
        let body = try WebPushEncryption.encrypt([UInt8](repeating: 0x61, count: 3993), for: Self.subscriber(), senderKeys: WebPushSenderKeys())
        #expect(body.count == 4096)
    }

    @Test("3,994 bytes of plaintext are refused")
    func oversizedPlaintextRefused() throws {
        #expect(throws: WebPushEncryptionError.plaintextTooLarge(count: 3994, limit: 3993)) {
            try WebPushEncryption.encrypt([UInt8](repeating: 0x61, count: 3994), for: Self.subscriber(), senderKeys: WebPushSenderKeys())
        }
    }

    @Test("a salt that is not 16 bytes is refused")
    func wrongSaltRefused() throws {
        let senderKey = P256.KeyAgreement.PrivateKey()
        for count in [0, 15, 17] {
            #expect(throws: WebPushEncryptionError.invalidSalt(count: count)) {
                try WebPushEncryption.encrypt([1, 2, 3], for: Self.subscriber(), senderKey: senderKey, salt: [UInt8](repeating: 7, count: count))
            }
        }
    }
}

@Suite("Web Push subscriber keys")
struct WebPushSubscriberKeysTests {
    static let point = RFC8291Example.receiverPublicKey
    static let auth = RFC8291Example.authSecret

    @Test("a browser's p256dh and auth texts are accepted, with or without base64 padding")
    func browserKeysAccepted() throws {
        let keys = try WebPushSubscriberKeys(p256dh: Self.point, auth: Self.auth)
        #expect(keys.auth.count == 16)
        #expect(Base64URL.encode(keys.p256dh.x963Representation) == Self.point)
        #expect(try WebPushSubscriberKeys(p256dh: Self.point + "=", auth: Self.auth + "==") == keys)
    }

    @Test("a p256dh that is not on the curve is refused")
    func pointOffTheCurveRefused() throws {
        var bytes = try RFC8291Example.bytes(Self.point)
        bytes[64] ^= 0x01
        #expect(throws: WebPushEncryptionError.invalidPublicKey("not a point on P-256")) {
            try WebPushSubscriberKeys(p256dh: Base64URL.encode(bytes), auth: Self.auth)
        }
    }

    @Test("a p256dh of the wrong length or form is refused", arguments: [64, 66, 33])
    func wrongLengthRefused(count: Int) throws {
        let valid = try RFC8291Example.bytes(Self.point)
        let bytes: [UInt8] =
            switch count {
            case 33: [0x02] + valid[1...32]  // the compressed form
            case 64: Array(valid.prefix(64))
            default: valid + [0]
            }
        #expect(throws: WebPushEncryptionError.invalidPublicKey("\(count) bytes")) {
            try WebPushSubscriberKeys(p256dh: Base64URL.encode(bytes), auth: Self.auth)
        }
    }

    @Test("a 65-byte p256dh that is not an uncompressed point is refused")
    func notUncompressedRefused() throws {
        var bytes = try RFC8291Example.bytes(Self.point)
        bytes[0] = 0x03
        #expect(throws: WebPushEncryptionError.invalidPublicKey("not an uncompressed point")) {
            try WebPushSubscriberKeys(p256dh: Base64URL.encode(bytes), auth: Self.auth)
        }
    }

    @Test("an auth secret of 15 or 17 bytes is refused", arguments: [15, 17])
    func wrongAuthLengthRefused(count: Int) throws {
        #expect(throws: WebPushEncryptionError.invalidAuthSecret("\(count) bytes")) {
            try WebPushSubscriberKeys(p256dh: Self.point, auth: Base64URL.encode([UInt8](repeating: 9, count: count)))
        }
    }

    @Test("texts that are not base64url are refused")
    func notBase64URLRefused() throws {
        #expect(throws: WebPushEncryptionError.invalidPublicKey("not base64url")) {
            try WebPushSubscriberKeys(p256dh: "BCVx sr7N", auth: Self.auth)
        }
        #expect(throws: WebPushEncryptionError.invalidAuthSecret("not base64url")) {
            try WebPushSubscriberKeys(p256dh: Self.point, auth: "BTBZ*qHH")
        }
    }

    @Test("the description shows a prefix of p256dh and never the auth secret")
    func descriptionRedacted() throws {
        let text = String(describing: try WebPushSubscriberKeys(p256dh: Self.point, auth: Self.auth))
        #expect(text.contains("BCVxsr7N"))
        #expect(!text.contains(Self.point))
        #expect(!text.contains(Self.auth))
    }
}
