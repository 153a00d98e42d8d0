import Crypto
import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxWebPush
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("VAPID key files")
struct VAPIDKeyTests {
    /// One test key (made with `openssl ecparam -genkey -name prime256v1`) in both PEM forms.
    static let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEILcJkdsyzfYMzkTVbvIfT3gcMJHB/Jth0G+Gr1pF+o+eoAoGCCqGSM49
        AwEHoUQDQgAEohbjgbRDBYQMIfi4y9OZQJpoI5LG8H0VXcLs6i7Hvi9Eu/cMAO8r
        Ipy5uN7dukaQ9EHh67Wp0cb08U/J1rcMCA==
        -----END EC PRIVATE KEY-----

        """
    static let pkcs8PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtwmR2zLN9gzORNVu
        8h9PeBwwkcH8m2HQb4avWkX6j56hRANCAASiFuOBtEMFhAwh+LjL05lAmmgjksbw
        fRVdwuzqLse+L0S79wwA7ysinLm43t26RpD0QeHrtanRxvTxT8nWtwwI
        -----END PRIVATE KEY-----

        """
    /// Its public key as `openssl ec -pubout -conv_form uncompressed` gives it, in base64url.
    static let publicKey = "BKIW44G0QwWEDCH4uMvTmUCaaCOSxvB9FV3C7Ooux74vRLv3DADvKyKcubje3bpGkPRB4eu1qdHG9PFPyda3DAg"

    /// Writes `text` to `path` and gives it `mode`.
    static func file(_ path: String, _ text: String, mode: mode_t) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, mode) == 0)
    }

    static func mode(_ path: String) throws -> mode_t {
        var status = stat()
        try #require(stat(path, &status) == 0)
        return status.st_mode & 0o7777
    }

    @Test("a generated key is written as a 0600 PKCS#8 PEM file and read back with the same public key")
    func writeThenRead() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("vapid.pem")
        let key = VAPIDKey.generate()
        try key.write(toNewFile: path)
        #expect(try Self.mode(path) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try VAPIDKey(contentsOfFile: path).publicKeyBase64URL == key.publicKeyBase64URL)
    }

    @Test("a key is never written over an existing file, which stays as it was")
    func existingFileKept() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("vapid.pem")
        try Self.file(path, Self.pkcs8PEM, mode: 0o600)
        #expect(throws: WebPushConfigurationError.existingFile(path)) { try VAPIDKey.generate().write(toNewFile: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.pkcs8PEM)
        #expect(try VAPIDKey(contentsOfFile: path).publicKeyBase64URL == Self.publicKey)
    }

    @Test("a dangling symbolic link is not followed to write a key")
    func danglingLinkRefused() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("vapid.pem")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: directory.path("elsewhere.pem"))
        #expect(throws: WebPushConfigurationError.existingFile(path)) { try VAPIDKey.generate().write(toNewFile: path) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("elsewhere.pem")))
    }

    @Test("PKCS#8 and SEC1 PEM files of one key both read to its public key", arguments: ["pkcs8", "sec1"])
    func bothPEMForms(form: String) throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("\(form).pem")
        try Self.file(path, form == "sec1" ? Self.sec1PEM : Self.pkcs8PEM, mode: 0o600)
        #expect(try VAPIDKey(contentsOfFile: path).publicKeyBase64URL == Self.publicKey)
    }

    @Test("a key file that group or others may access is refused with a chmod 600 hint", arguments: [0o644, 0o640, 0o604, 0o620] as [mode_t])
    func exposedFileRefused(mode: mode_t) throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("vapid.pem")
        try Self.file(path, Self.pkcs8PEM, mode: mode)
        let error = try #require(throws: WebPushConfigurationError.self) { try VAPIDKey(contentsOfFile: path) }
        #expect(error == .exposedFile(path, mode: UInt32(mode)))
        #expect(error.message.contains("chmod 600 \(path)"))
        #expect(error.message.contains("mode 0\(String(mode, radix: 8))"))
    }

    @Test("a missing file, a directory and a file over 64 KiB are refused")
    func unreadableFilesRefused() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let missing = directory.path("missing.pem")
        #expect(throws: WebPushConfigurationError.unreadableFile(missing, "No such file or directory")) {
            try VAPIDKey(contentsOfFile: missing)
        }
        let folder = directory.path("keys")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try #require(chmod(folder, 0o700) == 0)
        #expect(throws: WebPushConfigurationError.unreadableFile(folder, "it is a directory, not a key file")) {
            try VAPIDKey(contentsOfFile: folder)
        }
        let large = directory.path("large.pem")
        let padding = String(repeating: "# padding\n", count: 6600)
        try Self.file(large, Self.pkcs8PEM + padding, mode: 0o600)
        let size = Self.pkcs8PEM.utf8.count + padding.utf8.count
        #expect(throws: WebPushConfigurationError.unreadableFile(large, "\(size) bytes, over the 65536 bytes a key file may have")) {
            try VAPIDKey(contentsOfFile: large)
        }
    }

    @Test("a file that holds no P-256 private key is refused")
    func notAKeyRefused() throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-vapid")
        let path = directory.path("vapid.pem")
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        for text in ["not a key", p384, P256.Signing.PrivateKey().publicKey.pemRepresentation] {
            try? FileManager.default.removeItem(atPath: path)
            try Self.file(path, text, mode: 0o600)
            let error = try #require(throws: WebPushConfigurationError.self) { try VAPIDKey(contentsOfFile: path) }
            #expect(error.message.hasPrefix("invalid VAPID key in \(path)"))
        }
    }

    @Test("the description shows the public key and nothing of the private key")
    func descriptionShowsPublicKeyOnly() throws {
        let key = try VAPIDKey(pemRepresentation: Self.pkcs8PEM, source: "test")
        #expect(String(describing: key) == "VAPIDKey(public: \(Self.publicKey))")
    }
}
