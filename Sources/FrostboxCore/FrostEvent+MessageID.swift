extension FrostEvent {
    /// The message id of the alert of this event to `token`: a UUID (version 8, RFC 9562's
    /// custom layout, upper-case canonical text) built from a 128-bit hash of the device,
    /// box, night and level. The same key gives the same id in every process and version, so
    /// a resend after a crash is the same request without the id being stored per row; two
    /// keys sharing an id would need a 128-bit collision. The value is pinned by a test: a
    /// change to this function would change the id of entries already queued.
    public func messageID(for token: DeviceToken) -> String {
        // Two FNV-1a lanes with different bases over the same bytes give the 128 bits.
        var hash = MessageIDHash(bases: (0xCBF2_9CE4_8422_2325, 0x84222325_CBF29CE4))
        for byte in token.value.utf8 { hash.add(byte) }
        hash.add(UInt64(bitPattern: box.key))
        hash.add(UInt64(night.compactNumber))
        hash.add(UInt64(level.rawValue))
        return uuidText(hash.finished(salts: (0x9E37_79B9_7F4A_7C15, 0xD1B5_4A32_D192_ED03)))
    }
}

extension DeviceToken {
    /// The message id of the verification push to this device as registered at
    /// `createdAt` (the same for every resend; another registration of the token after its
    /// removal gets another id). A UUID built as `FrostEvent.messageID(for:)` builds one.
    public func verificationMessageID(createdAt: Int64) -> String {
        var hash = MessageIDHash(bases: (0x6C62_272E_07BB_0142, 0x62B8_2175_6295_C58D))
        for byte in value.utf8 { hash.add(byte) }
        hash.add(UInt64(bitPattern: createdAt))
        return uuidText(hash.finished(salts: (0x9E37_79B9_7F4A_7C15, 0xD1B5_4A32_D192_ED03)))
    }
}

/// 128 bits as a version 8 UUID (RFC 9562's custom layout), upper-case canonical text.
private func uuidText(_ bits: (UInt64, UInt64)) -> String {
    let (high, low) = bits
    return String(unsafeUninitializedCapacity: 36) { text in
        var position = 0
        for index in 0..<16 {
            var byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64(56 - 8 * (index % 8)))
            if index == 6 { byte = (byte & 0x0F) | 0x80 }  // version 8
            if index == 8 { byte = (byte & 0x3F) | 0x80 }  // RFC 9562 variant
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text[position] = UInt8(ascii: "-")
                position += 1
            }
            text[position] = uuidHexDigits[Int(byte >> 4)]
            text[position + 1] = uuidHexDigits[Int(byte & 0x0F)]
            position += 2
        }
        return position
    }
}

private let uuidHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

/// FNV-1a over bytes in two lanes, each finished with SplitMix64's mixer: a fixed, portable
/// 128-bit hash (unlike `Hasher`, which is seeded per process).
private struct MessageIDHash {
    var states: (UInt64, UInt64)

    init(bases: (UInt64, UInt64)) { states = bases }

    mutating func add(_ byte: UInt8) {
        states.0 = (states.0 ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        states.1 = (states.1 ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    func finished(salts: (UInt64, UInt64)) -> (UInt64, UInt64) {
        var first = SplitMix64(seed: states.0 ^ salts.0)
        var second = SplitMix64(seed: states.1 ^ salts.1)
        return (first.next(), second.next())
    }
}
