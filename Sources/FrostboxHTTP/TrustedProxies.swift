#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is one host).
/// IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) are the IPv4 address they carry.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    let prefixLength: Int
    public let description: String

    /// Nil when `text` is not a network or address.
    public init?(_ text: String) {
        let trimmed = text.trimmingWhitespace
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.address(String(parts[0])) else { return nil }
        let maximum = address.count * 8
        var length = maximum
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maximum).contains(given) else { return nil }
            length = given
        }
        bytes = address
        prefixLength = length
        description = parts.count == 2 ? trimmed : "\(trimmed)/\(maximum)"
    }

    /// Whether `address` (bytes as `address(_:)` gives them) is in this network.
    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for index in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if (address[index] & mask) != (bytes[index] & mask) { return false }
            remaining -= bits
        }
        return true
    }

    /// The bytes of an IPv4 or IPv6 address in text form (zone ids dropped; IPv4-mapped IPv6
    /// as IPv4), nil when it is not one.
    static func address(_ text: String) -> [UInt8]? {
        var text = text.trimmingWhitespace
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12..<16]) }
        return bytes
    }
}

/// The reverse proxies whose `X-Forwarded-For` is believed (`limits.rate_limit.trusted_proxies`).
/// A request from one of them is the client the header names: the right-most address in it
/// that is not itself a trusted proxy (each proxy appends the peer it saw). Entries that are
/// not addresses are ignored, so `X-Forwarded-For: whatever` gets no bucket of its own. A
/// request from any other peer is that peer, whatever it claims.
public struct TrustedProxies: Sendable, Hashable {
    public var networks: [IPNetwork]

    public init(_ networks: [IPNetwork] = []) {
        self.networks = networks
    }

    /// Parses a list such as `["127.0.0.1", "10.0.0.0/8", "::1"]`; the first entry that is not
    /// a network is returned as the error.
    public static func parse(_ entries: [String]) -> Result<TrustedProxies, BadEntry> {
        var networks: [IPNetwork] = []
        for entry in entries where !entry.trimmingWhitespace.isEmpty {
            guard let network = IPNetwork(entry) else { return .failure(BadEntry(entry: entry)) }
            networks.append(network)
        }
        return .success(TrustedProxies(networks))
    }

    /// An entry of the list that is not an address or network.
    public struct BadEntry: Error, Equatable {
        public let entry: String

        public init(entry: String) { self.entry = entry }
    }

    public var isEmpty: Bool { networks.isEmpty }

    func trusts(_ address: [UInt8]) -> Bool { networks.contains { $0.contains(address) } }

    /// The client of a request from `peer` carrying `forwardedFor` (the header's lines, in order).
    public func client(peer: String?, forwardedFor: [String]) -> String? {
        guard !networks.isEmpty, let peer, let peerBytes = IPNetwork.address(peer), trusts(peerBytes) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0).trimmingWhitespace }
        for hop in hops.reversed() {
            guard let bytes = IPNetwork.address(hop) else { continue }
            if !trusts(bytes) { return hop }
        }
        return peer
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
