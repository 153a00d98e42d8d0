/// base64url without padding (RFC 4648 §5, as JWTs and Web Push keys write it): the one
/// codec of the house, over bytes.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The text of `bytes`, without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let value = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            if second != nil { output.append(alphabet[Int(value >> 6 & 63)]) }
            if third != nil { output.append(alphabet[Int(value & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not base64url. `=` padding is accepted at the
    /// end (some browsers' keys carry it), and so are the `+` and `/` of plain base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var utf8 = Substring(text).utf8
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        guard utf8.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        for byte in utf8 {
            let value = sextets[Int(byte)]
            guard value != invalid else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> bits))
            }
        }
        // Leftover bits must be zero, or two texts would decode to the same bytes.
        guard accumulator & ((1 << bits) - 1) == 0 else { return nil }
        return output
    }

    /// What `sextets` holds for a byte that is not a base64 character.
    private static let invalid: UInt8 = 0xff
    /// Each byte's value as a base64 character (base64url's and plain base64's alike), or
    /// `invalid`: one look-up a character, on a path taken for every Web Push message's keys.
    private static let sextets: [UInt8] = (0...255).map { sextet(UInt8($0)) ?? invalid }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
