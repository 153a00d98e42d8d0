import FrostboxCore

/// How many places in boxes nobody subscribed to before one client may add per hour
/// (`limits.new_boxes_per_hour`): every such box costs a forecast each run, so a client
/// inventing devices and places could spend the day's forecast budget. IPv6 clients are
/// grouped by `ipv6PrefixLength` (a household or small network holds a /56 or larger); a
/// client behind a trusted proxy is the one its `X-Forwarded-For` names.
public struct NewPlaceLimit: Sendable {
    let limiter: RateLimiter
    let ipv6PrefixLength: Int
    let trustedProxies: TrustedProxies

    /// `perHour` new boxes a client may start, all of them at once at most.
    public init(
        perHour: Int, ipv6PrefixLength: Int = 56, trustedProxies: TrustedProxies = TrustedProxies(),
        now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        limiter = RateLimiter(
            settings: RateLimitSettings(burst: perHour, refillPerSecond: Double(perHour) / 3_600, maximumClients: 100_000), now: now)
        self.ipv6PrefixLength = ipv6PrefixLength
        self.trustedProxies = trustedProxies
    }

    /// Takes one new box from the client's allowance; the seconds until one is back when none is left.
    func acquire(peer: String?, forwardedFor: [String]) -> Int? {
        switch limiter.acquire(key(peer: peer, forwardedFor: forwardedFor)) {
        case .allowed: return nil
        case .limited(let retryAfter): return retryAfter
        }
    }

    /// Returns the box `acquire` took for a place that was not added after all.
    func giveBack(peer: String?, forwardedFor: [String]) {
        limiter.giveBack(key(peer: peer, forwardedFor: forwardedFor))
    }

    private func key(peer: String?, forwardedFor: [String]) -> String {
        IPNetwork.clientKey(trustedProxies.client(peer: peer, forwardedFor: forwardedFor), ipv6PrefixLength: ipv6PrefixLength)
    }
}

extension IPNetwork {
    /// A client's key: an IPv4 address as is, an IPv6 address by its network of
    /// `ipv6PrefixLength` bits, anything else (or nothing) as itself or `unknown`.
    static func clientKey(_ address: String?, ipv6PrefixLength: Int) -> String {
        guard let address, !address.isEmpty else { return "unknown" }
        guard let bytes = IPNetwork.address(address) else { return address }
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        var remaining = max(0, min(128, ipv6PrefixLength))
        let masked = bytes.map { byte -> UInt8 in
            let bits = min(8, remaining)
            remaining -= bits
            return bits == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
        let hex = masked.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return "\(hex)/\(ipv6PrefixLength)"
    }
}
