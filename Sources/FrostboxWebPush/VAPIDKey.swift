import Crypto
import FrostboxCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The application server's ES256 key pair (RFC 8292, VAPID): it signs the token of every
/// push request, and its public half is what a page passes to `pushManager.subscribe` as
/// `applicationServerKey`. Its description shows the public key only.
public struct VAPIDKey: Sendable, CustomStringConvertible {
    /// The largest key file read; a PEM P-256 key is a few hundred bytes.
    public static let maximumFileSize = 64 * 1024

    /// The private key tokens are signed with.
    package let privateKey: P256.Signing.PrivateKey
    /// The base64url (no padding) of the 65-byte uncompressed public point: the page's
    /// `applicationServerKey` and the `k=` of the `Authorization` header.
    public let publicKeyBase64URL: String

    /// Wraps a key made elsewhere (tests, tools).
    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.publicKeyBase64URL = Base64URL.encode(privateKey.publicKey.x963Representation)
    }

    /// A new random key pair.
    public static func generate() -> VAPIDKey {
        VAPIDKey(privateKey: P256.Signing.PrivateKey())
    }

    /// Parses a PEM P-256 private key, PKCS#8 (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`);
    /// `source` names where it came from in the error.
    public init(pemRepresentation: String, source: String) throws(WebPushConfigurationError) {
        do {
            self.init(privateKey: try P256.Signing.PrivateKey(pemRepresentation: pemRepresentation))
        } catch {
            throw .invalidKey(source, "not a PEM P-256 private key (PKCS#8 \"PRIVATE KEY\" or SEC1 \"EC PRIVATE KEY\")")
        }
    }

    /// Reads a PEM key file. Refuses a file that its group or others may access (the key signs
    /// every push this server sends), a missing file, anything but a regular file, and a file
    /// over 64 KiB.
    public init(contentsOfFile path: String) throws(WebPushConfigurationError) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; the type
        // check below then refuses it. It changes nothing for a regular file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { throw .unreadableFile(path, Self.lastError()) }
        defer { close(descriptor) }

        // The checks look at the open file, not the path, so the file read is the file checked.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadableFile(path, Self.lastError()) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .unreadableFile(path, "it is a directory, not a key file")
        default: throw .unreadableFile(path, "not a regular file")
        }
        guard status.st_mode & 0o077 == 0 else { throw .exposedFile(path, mode: UInt32(status.st_mode)) }
        guard status.st_size <= Self.maximumFileSize else {
            throw .unreadableFile(path, "\(status.st_size) bytes, over the \(Self.maximumFileSize) bytes a key file may have")
        }

        let bytes = try Self.readAll(descriptor, path: path, limit: Self.maximumFileSize)
        try self.init(pemRepresentation: String(decoding: bytes, as: UTF8.self), source: path)
    }

    /// Writes the private key to a new file at `path` as PKCS#8 PEM, readable by its owner
    /// only (mode 0600 whatever the umask). Never replaces anything already at `path`.
    public func write(toNewFile path: String) throws(WebPushConfigurationError) {
        // O_EXCL: an existing file (or a symbolic link, even a dangling one) is never followed
        // nor truncated.
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOCTTY, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw .existingFile(path) }
            throw .unwritableFile(path, Self.lastError())
        }
        var complete = false
        defer {
            close(descriptor)
            // The file is ours (created just now): a half-written key must not stay behind.
            if !complete { unlink(path) }
        }
        // The umask can only have taken bits away from 0600; set the mode exactly.
        guard fchmod(descriptor, 0o600) == 0 else { throw .unwritableFile(path, Self.lastError()) }
        var pem = privateKey.pemRepresentation
        if !pem.hasSuffix("\n") { pem += "\n" }
        guard writeAll(Array(pem.utf8), to: descriptor) else {
            throw .unwritableFile(path, Self.lastError())
        }
        guard fsync(descriptor) == 0 else { throw .unwritableFile(path, Self.lastError()) }
        complete = true
    }

    /// The public half, for verifying tokens.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    public var description: String { "VAPIDKey(public: \(publicKeyBase64URL))" }

    /// Reads to the end of the file, at most `limit` bytes (one more tells a file that grew).
    private static func readAll(_ descriptor: Int32, path: String, limit: Int) throws(WebPushConfigurationError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress! + total, buffer.count - total) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path, lastError())
            }
            if count == 0 { break }
            total += count
        }
        guard total <= limit else { throw .unreadableFile(path, "over the \(limit) bytes a key file may have") }
        bytes.removeSubrange(total...)
        return bytes
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// Writes all of `bytes`, retrying short and interrupted writes; false on an error (in `errno`).
/// A free function: inside `VAPIDKey`, `write` names the method.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress! + written, buffer.count - written) }
        if count < 0 {
            if errno == EINTR { continue }
            return false
        }
        written += count
    }
    return true
}
