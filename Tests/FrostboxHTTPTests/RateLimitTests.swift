import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let seconds = Mutex(1_000.0)
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
    var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
}

@Suite("Rate limiter")
struct RateLimiterTests {
    @Test("a client gets its burst, then 429s with the time until the next token")
    func burstThenLimited() {
        let clock = ManualClock()
        let limiter = RateLimiter(settings: RateLimitSettings(burst: 3, refillPerSecond: 0.5), now: clock.now)
        #expect(limiter.acquire("a") == .allowed(remaining: 2))
        #expect(limiter.acquire("a") == .allowed(remaining: 1))
        #expect(limiter.acquire("a") == .allowed(remaining: 0))
        #expect(limiter.acquire("a") == .limited(retryAfter: 2))
        clock.advance(1)
        #expect(limiter.acquire("a") == .limited(retryAfter: 1))
        clock.advance(1)
        #expect(limiter.acquire("a") == .allowed(remaining: 0))
        // Refill never goes past the burst.
        clock.advance(3_600)
        for expected in [2, 1, 0] { #expect(limiter.acquire("a") == .allowed(remaining: expected)) }
    }

    @Test("clients have buckets of their own")
    func separateClients() {
        let limiter = RateLimiter(settings: RateLimitSettings(burst: 1, refillPerSecond: 0.001), now: ManualClock().now)
        #expect(limiter.acquire("10.0.0.1") == .allowed(remaining: 0))
        #expect(limiter.acquire("10.0.0.2") == .allowed(remaining: 0))
        #expect(limiter.acquire("10.0.0.1") != .allowed(remaining: 0))
    }

    @Test("memory stays bounded under a flood of new addresses")
    func boundedMemory() {
        let clock = ManualClock()
        let limiter = RateLimiter(settings: RateLimitSettings(burst: 5, refillPerSecond: 1, maximumClients: 100), now: clock.now)
        for i in 0..<10_000 {
            _ = limiter.acquire("198.51.\(i / 256).\(i % 256)")
            #expect(limiter.trackedClients <= 100)
        }
        // A client that is being limited right now survives the eviction of idle ones.
        let busy = RateLimiter(settings: RateLimitSettings(burst: 1, refillPerSecond: 0.0001, maximumClients: 10), now: clock.now)
        _ = busy.acquire("busy")
        clock.advance(1)
        for i in 0..<50 { _ = busy.acquire("new-\(i)") }
        #expect(busy.trackedClients <= 10)
    }

    @Test("burst 0 disables the limit")
    func disabled() {
        let limiter = RateLimiter(settings: RateLimitSettings(burst: 0), now: ManualClock().now)
        for _ in 0..<1_000 { #expect(limiter.acquire("a") != .limited(retryAfter: 1)) }
        #expect(limiter.trackedClients == 0)
    }

    @Test(
        "client keys: IPv4 as is, IPv6 by /64, mapped IPv4 unwrapped, none as unknown",
        arguments: [
            ("203.0.113.9", "203.0.113.9"),
            ("2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64"),
            ("2001:db8:aa:bb::9", "2001:db8:aa:bb::/64"),
            ("2001:0DB8:00aa:00bb:ffff::1", "2001:db8:aa:bb::/64"),
            ("::1", "0:0:0:0::/64"),
            ("::ffff:192.0.2.1", "192.0.2.1"),
            ("fe80::1%eth0", "fe80:0:0:0::/64"),
        ])
    func clientKeys(address: String, key: String) {
        #expect(RateLimiter.clientKey(address: address) == key)
    }

    @Test("a missing address is keyed as unknown")
    func unknownClient() {
        #expect(RateLimiter.clientKey(address: nil) == "unknown")
        #expect(RateLimiter.clientKey(address: "") == "unknown")
    }
}

@Suite("Rate limit and timeouts on the API")
struct RateLimitRouteTests {
    static let token = "0123456789abcdef0123456789abcdef"

    @Test("beyond the burst the device API answers 429 JSON with Retry-After and writes nothing")
    func flood() async throws {
        let harness = try OperationsHarness { $0.rateLimit = RateLimitSettings(burst: 3, refillPerSecond: 0.01) }
        try await harness.test { client in
            for _ in 0..<3 {
                #expect(try await client.send(.put, "/v1/devices/\(Self.token)").status != .tooManyRequests)
            }
            var refused = 0
            for i in 0..<20 {
                let response = try await client.send(
                    .post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 1, "longitude": 2, "name": "p\#(i)"}"#)
                #expect(response.status == .tooManyRequests)
                #expect(response.errorCode == "rate_limited")
                let retryAfter = try #require(response.headers[.retryAfter].flatMap(Int.init))
                #expect((1...100).contains(retryAfter))
                refused += 1
            }
            #expect(refused == 20)
            let unknown = try await client.send(.get, "/nowhere")
            #expect(unknown.status == .tooManyRequests)
            // Probes and scrapes are never limited.
            #expect(try await client.send(.get, "/health").status == .ok)
            #expect(try await client.send(.get, "/ready").status == .ok)
            #expect(try await client.send(.get, "/metrics").status == .ok)
        }
        let subscriptions = try await harness.components.database.statistics().subscriptions
        #expect(subscriptions == 0)
        #expect(harness.metricsText.contains(#"frostbox_http_rate_limited_total 21"#))
        #expect(harness.metricsText.contains(#"frostbox_http_requests_total{route="/v1/devices/{token}/subscriptions",method="POST",status="429"} 20"#))
    }

    @Test("X-Forwarded-For picks the bucket only when the peer is a trusted proxy")
    func forwardedFor() async throws {
        for trusted in [false, true] {
            // Over loopback: the peer is 127.0.0.1, a trusted proxy in the second round.
            let proxies = trusted ? TrustedProxies([IPNetwork("127.0.0.0/8")!]) : TrustedProxies()
            let harness = try OperationsHarness { $0.rateLimit = RateLimitSettings(burst: 1, refillPerSecond: 0.01, trustedProxies: proxies) }
            try await harness.test(.live) { client in
                var statuses: [HTTPResponse.Status] = []
                for i in 0..<3 {
                    var headers = HTTPFields()
                    headers[HTTPField.Name("X-Forwarded-For")!] = "198.51.100.7, 203.0.113.\(i)"
                    statuses.append(try await client.send(.put, "/v1/devices/\(Self.token)", headers: headers).status)
                }
                let limited = statuses.filter { $0 == .tooManyRequests }.count
                #expect(limited == (trusted ? 0 : 2), "trusted: \(trusted), \(statuses)")
            }
        }
    }

    @Test("a handler that outlives the request timeout is cancelled and answered 503 JSON")
    func timeout() async throws {
        let cancelled = Mutex(false)
        let api = FrostboxAPI(
            groups: [
                { routes in
                    routes.on(.get, "/slow") { _, _ -> HTTPResponse.Status in
                        do {
                            try await Task.sleep(for: .seconds(600))
                        } catch {
                            cancelled.withLock { $0 = true }
                            throw error
                        }
                        return .ok
                    }
                    routes.on(.get, "/fast") { _, _ -> HTTPResponse.Status in .ok }
                }
            ], requestTimeout: .milliseconds(50))
        let app = Application(router: api.makeRouter(), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let slow = try await client.send(.get, "/slow")
            #expect(slow.status == .serviceUnavailable)
            #expect(slow.errorCode == "request_timeout")
            #expect(slow.headers[.retryAfter] == "1")
            #expect(try await client.send(.get, "/fast").status == .ok)
        }
        #expect(cancelled.withLock { $0 })
    }
}
