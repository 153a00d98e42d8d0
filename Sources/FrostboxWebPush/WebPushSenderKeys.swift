import CFrostboxSystem
import Crypto
import Synchronization

/// Hands out the fresh ephemeral key pair and salt every RFC 8291 message needs, from random
/// bytes drawn from the system's CSPRNG a block at a time: one `getrandom` of
/// `messagesPerDraw` × 48 bytes, where swift-crypto's and Swift's generators make one system
/// call per 8 bytes (six a message; 2–3 % of a browser push's CPU, docs/benchmarks.md, "Web
/// Push sends"). Every 48 bytes go to one message only and are zeroed in the block as they
/// are taken. Safe to call from any task.
package final class WebPushSenderKeys: Sendable {
    /// The bytes one message takes: a 32-byte scalar, then the 16-byte salt.
    static let bytesPerMessage = 32 + WebPushEncryption.saltCount
    /// Messages one draw serves.
    package static let messagesPerDraw = 64

    /// Fills a buffer with random bytes; false when it could not.
    package typealias Source = @Sendable (UnsafeMutableRawBufferPointer) -> Bool

    private struct Block: ~Copyable {
        var bytes: [UInt8]
        /// Where the next message's bytes begin; `bytes.count`: all taken.
        var next: Int
    }

    private let block: Mutex<Block>
    private let source: Source

    /// - Parameter source: where the bytes come from; the system's CSPRNG unless a test says.
    package init(source: @escaping Source = WebPushSenderKeys.systemRandom) {
        let count = Self.messagesPerDraw * Self.bytesPerMessage
        block = Mutex(Block(bytes: [UInt8](repeating: 0, count: count), next: count))
        self.source = source
    }

    /// getrandom(2) for the whole buffer.
    package static let systemRandom: Source = { buffer in
        guard let base = buffer.baseAddress else { return true }
        return frostbox_random_bytes(base, buffer.count) == 0
    }

    /// A fresh key pair and 16-byte salt. The key is a scalar drawn uniformly (drawn again in
    /// the 2⁻³² case that it is zero or not below the group order, which BoringSSL refuses),
    /// its public point computed from it. Not `P256.KeyAgreement.PrivateKey()`: that one runs
    /// BoringSSL's FIPS key check on every key it draws (the public point computed again, an
    /// ECDSA signature made and verified), 5–7 times the cost of this, for nothing a key used
    /// once for one ECDH needs.
    package func next() -> (key: P256.KeyAgreement.PrivateKey, salt: [UInt8]) {
        var drawn = [UInt8](repeating: 0, count: Self.bytesPerMessage)
        defer {
            // The scalar's copy in this array is not needed past the key's creation.
            drawn.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        }
        while true {
            take(into: &drawn)
            if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: drawn[0..<32]) {
                return (key, Array(drawn[32...]))
            }
        }
    }

    /// Copies the next message's bytes out of the block (drawing a new block when it is used
    /// up) and zeroes them there.
    private func take(into drawn: inout [UInt8]) {
        let count = Self.bytesPerMessage
        let source = self.source
        block.withLock { block in
            if block.next == block.bytes.count {
                let filled = block.bytes.withUnsafeMutableBytes { source($0) }
                if !filled {
                    // The system refused (it never does on Linux ≥ 3.17): swift-crypto's
                    // generator, which traps rather than give non-random bytes.
                    let fallback = SymmetricKey(size: SymmetricKeySize(bitCount: block.bytes.count * 8))
                    fallback.withUnsafeBytes { random in block.bytes.withUnsafeMutableBytes { $0.copyMemory(from: random) } }
                }
                block.next = 0
            }
            let start = block.next
            block.next += count
            block.bytes.withUnsafeMutableBytes { bytes in
                let taken = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + count])
                drawn.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(taken)) }
                taken.initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
    }
}
