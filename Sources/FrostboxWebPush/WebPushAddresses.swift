import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The addresses a push service must not be at unless it is allowed to be private: this
/// host's and its networks' (private, loopback, link-local, carrier-grade NAT, unspecified,
/// multicast, reserved), in IPv4 and IPv6 (an IPv6 address that reaches an IPv4 one — mapped,
/// NAT64, 6to4 — as that IPv4 address).
enum WebPushAddresses {
    /// Whether `address` is one a public push service cannot have.
    static func isPrivate(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            let value = UInt32(bigEndian: v4.address.sin_addr.s_addr)
            return isPrivateIPv4(value)
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            return isPrivateIPv6(bytes)
        default:
            return true
        }
    }

    static func isPrivateIPv4(_ value: UInt32) -> Bool {
        let ranges: [(UInt32, Int)] = [
            (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
            (0x0A00_0000, 8),  // 10/8
            (0x6440_0000, 10),  // 100.64/10 carrier-grade NAT
            (0x7F00_0000, 8),  // 127/8 loopback
            (0xA9FE_0000, 16),  // 169.254/16 link-local (cloud metadata services)
            (0xAC10_0000, 12),  // 172.16/12
            (0xC000_0000, 24),  // 192.0.0/24 protocol assignments
            (0xC0A8_0000, 16),  // 192.168/16
            (0xC612_0000, 15),  // 198.18/15 benchmarking
            (0xE000_0000, 4),  // 224/4 multicast
            (0xF000_0000, 4),  // 240/4 reserved, and the broadcast address
        ]
        return ranges.contains { base, bits in value >> UInt32(32 - bits) == base >> UInt32(32 - bits) }
    }

    static func isPrivateIPv6(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            // ::ffff:a.b.c.d, an IPv4 address.
            return isPrivateIPv4(UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15]))
        }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return true }  // ::/96: ::, ::1 and the deprecated IPv4-compatible form
        let embedded = { (at: Int) in UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]) }
        if bytes[0..<12].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) {
            // 64:ff9b::/96, NAT64's well-known prefix: through the translator, its IPv4 address.
            return isPrivateIPv4(embedded(12))
        }
        if bytes[0..<6].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01]) { return true }  // 64:ff9b:1::/48, local NAT64
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return isPrivateIPv4(embedded(2)) }  // 2002::/16, 6to4: its IPv4 address
        if bytes[0..<8].elementsEqual([0x01, 0, 0, 0, 0, 0, 0, 0]) { return true }  // 100::/64 discard-only
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return true }  // fec0::/10, the deprecated site-local
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0] & 0xfe == 0xfc { return true }  // fc00::/7 unique local
        if bytes[0] == 0xff { return true }  // ff00::/8 multicast
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return true }  // 2001:db8::/32 documentation
        return false
    }
}

/// Finds the addresses of a push service's host.
public protocol WebPushResolver: Sendable {
    /// Every address of `host` (an IP literal: itself), within the resolver's deadline.
    func addresses(of host: String, port: Int) async throws -> [SocketAddress]
}

/// A push service's host that is not connected to: it does not resolve, or not to an address
/// the guard lets this server connect to.
public struct WebPushResolutionError: Error, Sendable, CustomStringConvertible {
    public let host: String
    public let reason: String
    public var description: String { "push service \(host): \(reason)" }
}
