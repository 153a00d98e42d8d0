/// The `sub` claim of every VAPID token (RFC 8292 §2.1): how the push service's operator can
/// reach us, a `mailto:` address or an `https://` URL. Validated once, at configuration: a
/// plausible `local@domain.tld` address, or an https URL with a dotted host. `localhost` and
/// hosts without a dot are refused, since Apple's push service refuses tokens naming them.
public struct VAPIDSubject: Sendable, Hashable, CustomStringConvertible {
    /// The longest subject accepted; it travels in every token.
    public static let maximumLength = 512

    /// The subject as written in the token (the scheme in lower case).
    public let value: String

    /// Validates `text`: `mailto:name@example.com`, or `https://example.com[:port][/path]`.
    public init(_ text: String) throws(WebPushConfigurationError) {
        guard text.utf8.count <= Self.maximumLength else { throw .invalidSubject(text, "longer than \(Self.maximumLength) bytes") }
        if text.prefix(7).lowercased() == "mailto:" {
            let address = text.dropFirst("mailto:".count)
            try Self.checkAddress(address, subject: text)
            value = "mailto:" + address
        } else if text.prefix(8).lowercased() == "https://" {
            let rest = text.dropFirst("https://".count)
            try Self.checkURL(rest, subject: text)
            value = "https://" + rest
        } else {
            throw .invalidSubject(text, "it starts with neither mailto: nor https://")
        }
    }

    public var description: String { value }

    private static func checkAddress(_ address: Substring, subject: String) throws(WebPushConfigurationError) {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .invalidSubject(subject, "the address needs exactly one @") }
        let local = parts[0]
        guard !local.isEmpty, local.utf8.count <= 64 else { throw .invalidSubject(subject, "the part before @ must have 1 to 64 characters") }
        guard local.utf8.allSatisfy(isLocalPartByte), local.first != ".", local.last != ".", !local.contains("..") else {
            throw .invalidSubject(subject, "the part before @ has characters an address cannot have")
        }
        try checkHost(parts[1], subject: subject)
    }

    private static func checkURL(_ rest: Substring, subject: String) throws(WebPushConfigurationError) {
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw .invalidSubject(subject, "the URL must not carry a user name or password") }
        var host = authority
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            let port = authority[authority.index(after: colon)...]
            guard let number = Int(port), (1...65535).contains(number), port.utf8.allSatisfy(isDigit) else {
                throw .invalidSubject(subject, "the port must be a number from 1 to 65535")
            }
        }
        try checkHost(host, subject: subject)
        guard rest[authorityEnd...].utf8.allSatisfy(isURLByte) else {
            throw .invalidSubject(subject, "the URL has spaces, quotes or other characters a URL cannot have")
        }
    }

    /// A public DNS name: dotted labels of letters, digits and inner hyphens, a top-level
    /// label of two or more characters that is not all digits (so no IP address).
    private static func checkHost(_ host: Substring, subject: String) throws(WebPushConfigurationError) {
        guard !host.isEmpty else { throw .invalidSubject(subject, "the host is missing") }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.last?.lowercased() != "localhost" else { throw .invalidSubject(subject, "localhost is not a public host") }
        guard labels.count >= 2 else { throw .invalidSubject(subject, "the host \(host) has no dot") }
        guard host.utf8.count <= 253,
            labels.allSatisfy({ label in
                (1...63).contains(label.utf8.count) && label.utf8.allSatisfy(isHostByte) && label.first != "-" && label.last != "-"
            })
        else {
            throw .invalidSubject(subject, "the host \(host) is not a valid domain name")
        }
        guard let top = labels.last, top.utf8.count >= 2, !top.utf8.allSatisfy(isDigit) else {
            throw .invalidSubject(subject, "the host \(host) has no top-level domain")
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool { isLetterOrDigit(byte) || byte == UInt8(ascii: "-") }

    /// RFC 5322 `atext` and the dot, less `?` (which would start a mailto query).
    private static func isLocalPartByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || "!#$%&'*+-/=^_`{|}~.".utf8.contains(byte)
    }

    /// Printable ASCII a URL may carry unescaped (RFC 3986 reserved and unreserved, and `%`).
    private static func isURLByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
    }
}
