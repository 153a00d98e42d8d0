/// An APNs device token: even-length hex of 16–200 digits, stored lower case. Accepts upper
/// case and the `<abcd ef01>` form iOS prints.
public struct DeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The token as the gateway knows it: lower-case hex digits for APNs.
    public let value: String

    public static let minimumLength = 16
    public static let maximumLength = 200

    /// Validates and normalises a token as sent by a client.
    public init(_ raw: String) throws(ValidationError) {
        var digits = ""
        digits.reserveCapacity(raw.utf8.count)
        var trimmed = Substring(raw)
        if trimmed.first == "<" && trimmed.last == ">" && trimmed.count >= 2 {
            trimmed = trimmed.dropFirst().dropLast()
        }
        for byte in trimmed.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                digits.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digits.unicodeScalars.append(Unicode.Scalar(byte + 32))
            case UInt8(ascii: " "):
                continue
            default:
                throw ValidationError(.invalidToken, field: "token", "token must be hexadecimal digits")
            }
        }
        guard digits.count >= Self.minimumLength, digits.count <= Self.maximumLength, digits.count % 2 == 0 else {
            throw ValidationError(
                .invalidToken, field: "token",
                "token must be an even number of hex digits, \(Self.minimumLength)–\(Self.maximumLength) long")
        }
        self.value = digits
    }

    /// For values read back from our own storage.
    public init(trusted value: String) { self.value = value }

    /// The form safe for logs: first 6 and last 4 hex digits.
    public var redacted: String { "\(value.prefix(6))…\(value.suffix(4))" }

    /// Never the whole token: string interpolation of a token is the redacted form.
    public var description: String { redacted }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.value < rhs.value }
}
