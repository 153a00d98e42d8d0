/// A set of geonameids: a bitmap for the usual ids (< 2^31), a hash set beyond.
struct IDSet {
    private var bits: [UInt64] = []
    private var large = Set<Int64>()

    /// Inserts `id`; false when it was already there.
    mutating func insert(_ id: Int64) -> Bool {
        guard id >= 0, id < (1 << 31) else { return large.insert(id).inserted }
        let word = Int(id >> 6)
        if word >= bits.count {
            bits.append(contentsOf: repeatElement(0, count: max(word + 1 - bits.count, bits.count / 2)))
        }
        let mask: UInt64 = 1 << UInt64(id & 63)
        if bits[word] & mask != 0 { return false }
        bits[word] |= mask
        return true
    }
}
