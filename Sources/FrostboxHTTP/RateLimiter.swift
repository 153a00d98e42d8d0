import Foundation
import FrostboxCore
import Synchronization

/// Settings of the per-client token bucket.
public struct RateLimitSettings: Sendable, Equatable {
    /// Requests a client may make in a burst (the bucket's size). 0 disables the limit.
    public var burst: Int
    /// Requests per second the bucket refills at.
    public var refillPerSecond: Double
    /// Most clients remembered at once; beyond it idle clients are forgotten first (bounded memory).
    public var maximumClients: Int
    /// The reverse proxies whose `X-Forwarded-For` names the client; none by default.
    public var trustedProxies: TrustedProxies

    public init(burst: Int = 60, refillPerSecond: Double = 1, maximumClients: Int = 10_000, trustedProxies: TrustedProxies = TrustedProxies()) {
        self.burst = burst
        self.refillPerSecond = refillPerSecond
        self.maximumClients = maximumClients
        self.trustedProxies = trustedProxies
    }

    /// Whether requests are limited at all.
    public var isEnabled: Bool { burst > 0 && refillPerSecond > 0 }
}

/// A token bucket per client key. Each request takes a token; tokens come back at
/// `refillPerSecond` up to `burst`. Memory is bounded by `maximumClients`: a full bucket is the
/// same as no bucket, so those are dropped first, then the longest idle ones.
public final class RateLimiter: Sendable {
    /// The limiter's answer for one request.
    public enum Decision: Sendable, Equatable {
        /// Go ahead; `remaining` whole tokens are left.
        case allowed(remaining: Int)
        /// Refused; a token will be back after `retryAfter` whole seconds (at least 1).
        case limited(retryAfter: Int)
    }

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let settings: RateLimitSettings
    /// Monotonic seconds (injected so tests control time).
    let now: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(settings: RateLimitSettings, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.settings = settings
        self.now = now
    }

    /// Seconds on the continuous clock since an arbitrary origin.
    public static let monotonicSeconds: @Sendable () -> Double = {
        (ContinuousClock.now - origin).inSeconds
    }
    private static let origin = ContinuousClock.now

    /// Takes a token from `key`'s bucket.
    public func acquire(_ key: String) -> Decision {
        guard settings.isEnabled else { return .allowed(remaining: Int.max) }
        let time = now()
        let capacity = Double(settings.burst)
        let rate = settings.refillPerSecond
        return buckets.withLock { buckets in
            var bucket: Bucket
            if let existing = buckets[key] {
                bucket = existing
                bucket.tokens = min(capacity, bucket.tokens + max(0, time - bucket.updated) * rate)
            } else {
                if buckets.count >= settings.maximumClients {
                    Self.evict(&buckets, at: time, capacity: capacity, rate: rate, keep: settings.maximumClients)
                }
                bucket = Bucket(tokens: capacity, updated: time)
            }
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                let wait = ((1 - bucket.tokens) / rate).rounded(.up)
                return .limited(retryAfter: max(1, Int(min(wait, 86_400))))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return .allowed(remaining: Int(bucket.tokens))
        }
    }

    /// Puts back a token `acquire` took from `key`'s bucket (never above the burst).
    public func giveBack(_ key: String) {
        guard settings.isEnabled else { return }
        buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return }
            bucket.tokens = min(Double(settings.burst), bucket.tokens + 1)
            buckets[key] = bucket
        }
    }

    /// Clients currently remembered.
    public var trackedClients: Int { buckets.withLock { $0.count } }

    /// Makes room for at least a tenth of `keep` new clients, so that a flood of new addresses
    /// costs one sweep per many requests rather than one per request.
    static func evict(_ buckets: inout [String: Bucket], at time: Double, capacity: Double, rate: Double, keep: Int) {
        buckets = buckets.filter { _, bucket in bucket.tokens + max(0, time - bucket.updated) * rate < capacity }
        let target = keep - max(1, keep / 10)
        guard buckets.count > target else { return }
        let idleFirst = buckets.sorted { $0.value.updated < $1.value.updated }
        for (key, _) in idleFirst.prefix(buckets.count - target) {
            buckets.removeValue(forKey: key)
        }
    }

    /// The bucket key of a client address: IPv4 as is, IPv6 by its /64 network (one
    /// subscriber usually holds a whole /64), nil as `unknown`.
    public static func clientKey(address: String?) -> String {
        guard let address, !address.isEmpty else { return "unknown" }
        guard address.contains(":") else { return address }
        if address.hasPrefix("::ffff:"), address.contains(".") {
            return String(address.dropFirst("::ffff:".count))
        }
        return ipv6Prefix64(address) ?? address
    }

    /// The first four groups of an IPv6 address, expanded (`2001:db8:0:1`).
    static func ipv6Prefix64(_ address: String) -> String? {
        let trimmed = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        let halves = trimmed.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        let head = halves[0].isEmpty ? [] : halves[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let tail = halves.count == 2 && !halves[1].isEmpty ? halves[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init) : []
        var groups = head
        if halves.count == 2 {
            let missing = 8 - head.count - tail.count
            guard missing >= 0 else { return nil }
            groups += Array(repeating: "0", count: missing)
        }
        groups += tail
        guard groups.count >= 4 else { return nil }
        let prefix = groups.prefix(4).map { group -> String in
            let digits = group.drop { $0 == "0" }
            return digits.isEmpty ? "0" : String(digits).lowercased()
        }
        return prefix.joined(separator: ":") + "::/64"
    }
}
