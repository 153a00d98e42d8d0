/// A device's push token, in the form its gateway knows it: for iOS even-length hex of
/// 16–200 digits, stored lower case (upper case and the `<abcd ef01>` form iOS prints are
/// accepted); for Android an opaque registration token of up to 4,096 characters from
/// `A–Z a–z 0–9 _ : -`, kept exactly as sent; for a browser the device id the server gave its
/// Web Push subscription, `web:` and 22 base64url characters (16 random bytes).
public struct DeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The token as the gateway knows it.
    public let value: String

    public static let minimumLength = 16
    public static let maximumLength = 200
    /// Longest Android registration token accepted (the gateway documents none; 4 KB bounds it).
    public static let maximumRegistrationTokenLength = 4096

    /// Validates and normalises a token whose platform the client did not say (lookups, and
    /// the routes where a token alone names a device): an iOS token when it is one, otherwise
    /// an Android registration token.
    public init(_ raw: String) throws(ValidationError) {
        if let hex = Self.hexForm(raw) {
            value = hex
        } else if Self.isWebIDForm(raw) || Self.isRegistrationTokenForm(raw) {
            value = raw
        } else {
            throw ValidationError(
                .invalidToken, field: "token",
                "token must be an iOS device token (an even number of hex digits, \(Self.minimumLength)–\(Self.maximumLength) long) "
                    + "or an Android registration token (1–\(Self.maximumRegistrationTokenLength) characters of A–Z a–z 0–9 _ : -) "
                    + "or a browser's device id (web:…)")
        }
    }

    /// Validates a token as its platform's: hex for iOS, opaque for Android.
    public init(_ raw: String, platform: DevicePlatform) throws(ValidationError) {
        switch platform {
        case .ios:
            guard let hex = Self.hexForm(raw) else {
                if raw.utf8.contains(where: { !Self.isHexOrSpace($0) && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }) {
                    throw ValidationError(
                        .invalidToken, field: "token",
                        "token must be hexadecimal digits (an iOS device token; send \"platform\": \"android\" for an Android token)")
                }
                throw ValidationError(
                    .invalidToken, field: "token",
                    "token must be an even number of hex digits, \(Self.minimumLength)–\(Self.maximumLength) long")
            }
            value = hex
        case .android:
            guard Self.isRegistrationTokenForm(raw), !Self.isWebIDForm(raw) else {
                throw ValidationError(
                    .invalidToken, field: "token",
                    "an Android registration token must be 1–\(Self.maximumRegistrationTokenLength) characters of A–Z a–z 0–9 _ : -")
            }
            value = raw
        case .web:
            guard Self.isWebIDForm(raw) else {
                throw ValidationError(
                    .invalidToken, field: "token",
                    "a browser is named by the device id its registration answered (web: and 22 characters); register its subscription first")
            }
            value = raw
        }
    }

    /// A new browser device id from 16 random bytes.
    public static func webID(random bytes: [UInt8]) -> DeviceToken {
        precondition(bytes.count == 16, "a web device id is 16 bytes")
        return DeviceToken(trusted: webIDPrefix + Base64URL.encode(bytes))
    }

    /// What every browser device id starts with.
    public static let webIDPrefix = "web:"

    /// For values read back from our own storage.
    public init(trusted value: String) { self.value = value }

    /// The platform the token's form says: iOS for a hex token, web for a browser's device id,
    /// Android otherwise.
    public var formPlatform: DevicePlatform {
        if Self.hexForm(value) == value { return .ios }
        return Self.isWebIDForm(value) ? .web : .android
    }

    /// The form safe for logs: first 6 and last 4 characters of a token of at least
    /// `redactionMinimumLength`; a shorter one (whose ends would be most of it) as `#` and
    /// the first 8 hex digits of a 64-bit FNV-1a hash, enough to tell tokens apart in logs.
    public var redacted: String {
        guard value.utf8.count >= Self.redactionMinimumLength else { return "#" + Self.hashPrefix(value) }
        return "\(value.prefix(6))…\(value.suffix(4))"
    }

    /// Tokens shorter than this are logged as a hash prefix only.
    public static let redactionMinimumLength = 24

    /// The first 8 hex digits of the FNV-1a hash of `text`'s UTF-8 bytes.
    static func hashPrefix(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash >> 32, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Never the whole token: string interpolation of a token is the redacted form.
    public var description: String { redacted }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.value < rhs.value }

    /// The lower-case hex digits of an iOS token as clients send it, or nil when it is not one.
    private static func hexForm(_ raw: String) -> String? {
        var trimmed = Substring(raw)
        if trimmed.first == "<" && trimmed.last == ">" && trimmed.count >= 2 {
            trimmed = trimmed.dropFirst().dropLast()
        }
        var digits = ""
        digits.reserveCapacity(trimmed.utf8.count)
        for byte in trimmed.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                digits.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digits.unicodeScalars.append(Unicode.Scalar(byte + 32))
            case UInt8(ascii: " "):
                continue
            default:
                return nil
            }
        }
        guard digits.utf8.count >= minimumLength, digits.utf8.count <= maximumLength, digits.utf8.count % 2 == 0 else { return nil }
        return digits
    }

    private static func isHexOrSpace(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: " "): true
        default: false
        }
    }

    /// Whether `raw` is a browser device id: `web:` and 22 base64url characters.
    static func isWebIDForm(_ raw: String) -> Bool {
        raw.utf8.count == webIDPrefix.utf8.count + 22 && raw.hasPrefix(webIDPrefix)
            && raw.utf8.dropFirst(webIDPrefix.utf8.count).allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// Whether `raw` has an Android registration token's form.
    private static func isRegistrationTokenForm(_ raw: String) -> Bool {
        let count = raw.utf8.count
        guard count >= 1, count <= maximumRegistrationTokenLength else { return false }
        return raw.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
