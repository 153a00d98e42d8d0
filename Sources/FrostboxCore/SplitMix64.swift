/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same
/// sequence on every machine, for reproducible synthetic data, fault injection and property
/// tests. Not for anything that needs unpredictability.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state; advancing it is the whole algorithm.
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (modulo bias is negligible for the small `n` it is used with).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A uniform number in [0, 1) with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
