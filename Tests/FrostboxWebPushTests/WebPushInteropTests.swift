import Crypto
import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxWebPush
import Testing

/// Our bodies as a browser would read them, by an implementation that is not ours: Python's
/// `http_ece` (PyPI `http-ece`, which .ci/run installs). Its absence fails the suite.
@Suite("Web Push encryption against http_ece")
struct WebPushInteropTests {
    /// Decrypts `body-N` with `receiver.key` (raw 32-byte scalar) and `auth`, writing `plain-N`.
    static let decryptor = """
        import sys
        import http_ece
        from cryptography.hazmat.primitives.asymmetric import ec
        directory, count = sys.argv[1], int(sys.argv[2])
        def read(name):
            with open(directory + "/" + name, "rb") as file:
                return file.read()
        key = ec.derive_private_key(int.from_bytes(read("receiver.key"), "big"), ec.SECP256R1())
        for index in range(count):
            plain = http_ece.decrypt(read("body-%d" % index), private_key=key, auth_secret=read("auth"), version="aes128gcm")
            with open(directory + "/plain-%d" % index, "wb") as file:
                file.write(plain)
        """

    @Test("bodies made with fresh keys and salts decrypt with http_ece to the plaintext, empty to 3,993 bytes")
    func httpECEDecryptsOurBodies() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-webpush")
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let subscriber = try WebPushSubscriberKeys(
            p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(auth))
        let plaintexts: [[UInt8]] = [
            [], Array("{\"title\":\"Frost tonight\",\"body\":\"−3 °C at 05:00 in Tromsø\"}".utf8),
            (0..<3993).map { UInt8(truncatingIfNeeded: $0 &* 31) },
        ]
        try Data(receiver.rawRepresentation).write(to: directory.url.appendingPathComponent("receiver.key"))
        try Data(auth).write(to: directory.url.appendingPathComponent("auth"))
        let senderKeys = WebPushSenderKeys()
        for (index, plaintext) in plaintexts.enumerated() {
            let body = try WebPushEncryption.encrypt(plaintext, for: subscriber, senderKeys: senderKeys)
            try Data(body).write(to: directory.url.appendingPathComponent("body-\(index)"))
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.decryptor, directory.url.path, String(plaintexts.count)]
        let errors = directory.url.appendingPathComponent("stderr")
        try Data().write(to: errors)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stderr = String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "python3 with http_ece failed (pip install http-ece): \(stderr)")

        for (index, plaintext) in plaintexts.enumerated() {
            let decrypted = try Data(contentsOf: directory.url.appendingPathComponent("plain-\(index)"))
            #expect(Array(decrypted) == plaintext, "body \(index) of \(plaintext.count) bytes")
        }
    }
}
