extension FrostEvent {
    /// The `apns-id` of the alert of this event to `token`: a UUID (version 8, RFC 9562's
    /// custom layout, upper-case canonical text) built from a 128-bit hash of the device,
    /// box, night and level. The same key gives the same id in every process and version, so
    /// a resend after a crash is the same request without the id being stored per row; two
    /// keys sharing an id would need a 128-bit collision. The value is pinned by a test: a
    /// change to this function would change the id of entries already queued.
    public func apnsID(for token: DeviceToken) -> String {
        var first = APNsIDHash(basis: 0xCBF2_9CE4_8422_2325)
        var second = APNsIDHash(basis: 0x84222325_CBF29CE4)
        for byte in token.hex.utf8 {
            first.add(byte)
            second.add(byte)
        }
        for value in [UInt64(bitPattern: box.key), UInt64(night.compactNumber), UInt64(level.rawValue)] {
            first.add(value)
            second.add(value)
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        let high = first.finished(salt: 0x9E37_79B9_7F4A_7C15)
        let low = second.finished(salt: 0xD1B5_4A32_D192_ED03)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// FNV-1a over bytes, finished with SplitMix64's mixer: a fixed, portable 64-bit hash
/// (unlike `Hasher`, which is seeded per process).
private struct APNsIDHash {
    var state: UInt64

    init(basis: UInt64) { state = basis }

    mutating func add(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    func finished(salt: UInt64) -> UInt64 {
        var mixer = SplitMix64(seed: state ^ salt)
        return mixer.next()
    }
}
