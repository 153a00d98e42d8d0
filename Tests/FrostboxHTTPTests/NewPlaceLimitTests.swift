import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

@testable import FrostboxHTTP

/// `limits.new_boxes_per_hour`: places in boxes nobody subscribed to before, per client.
@Suite("New places per client")
struct NewPlaceLimitTests {
    static let tokens = ["0123456789abcdef0123456789abcd01", "0123456789abcdef0123456789abcd02"]

    static func body(_ latitude: Double) -> String { #"{"latitude": \#(latitude), "longitude": 25.01, "name": "P\#(latitude)"}"# }

    @Test("beyond the allowance a new box answers 429 too_many_new_places with Retry-After and stores nothing; known boxes still go")
    func limited() async throws {
        let clock = Mutex(0.0)
        let limit = NewPlaceLimit(perHour: 2, now: { clock.withLock { $0 } })
        let harness = RouteTestHarness.inMemory(newPlaces: limit)
        try await harness.test { client in
            for latitude in [60.0, 61.0] {
                let added = try await client.send(.post, "/v1/devices/\(Self.tokens[0])/subscriptions", json: Self.body(latitude))
                #expect(added.status == .created)
            }
            let third = try await client.send(.post, "/v1/devices/\(Self.tokens[0])/subscriptions", json: Self.body(62.0))
            #expect(third.status == .tooManyRequests)
            #expect(third.errorCode == "too_many_new_places")
            #expect(third.headers[.retryAfter] == "1800")
            let legacy = #"{"token": "\#(Self.tokens[1])", "location": {"latitude": "63", "longitude": "25", "name": "X"}}"#
            #expect(try await client.send(.post, "/add_location", json: legacy).status == .tooManyRequests)
            #expect(try await harness.count("subscription") == 2)
            // A box someone already subscribes to costs no forecast: another device joins it.
            let joined = try await client.send(.post, "/v1/devices/\(Self.tokens[1])/subscriptions", json: Self.body(60.0))
            #expect(joined.status == .created)
            // Half an hour later one new box is allowed again.
            clock.withLock { $0 = 1_800 }
            let later = try await client.send(.post, "/v1/devices/\(Self.tokens[0])/subscriptions", json: Self.body(62.0))
            #expect(later.status == .created)
        }
    }

    @Test("a new box refused by the store (the device is full) is given back: it does not use up the client's allowance")
    func refusedPlaceIsGivenBack() async throws {
        let limit = NewPlaceLimit(perHour: 7, now: { 0 })
        let harness = RouteTestHarness.inMemory(newPlaces: limit)
        try await harness.test { client in
            // The harness's store holds 5 places a device: the 6th and later are 409s.
            for n in 0..<5 {
                #expect(try await client.send(.post, "/v1/devices/\(Self.tokens[0])/subscriptions", json: Self.body(50.0 + Double(n))).status == .created)
            }
            for n in 5..<10 {
                let full = try await client.send(.post, "/v1/devices/\(Self.tokens[0])/subscriptions", json: Self.body(50.0 + Double(n)))
                #expect(full.status == .conflict && full.errorCode == "subscription_limit", "\(full.status)")
            }
            // Two of the seven are left, whatever the refused ones tried.
            for n in 0..<2 {
                #expect(try await client.send(.post, "/v1/devices/\(Self.tokens[1])/subscriptions", json: Self.body(70.0 + Double(n))).status == .created)
            }
            #expect(try await client.send(.post, "/v1/devices/\(Self.tokens[1])/subscriptions", json: Self.body(72.0)).status == .tooManyRequests)
        }
    }

    @Test("clients: IPv4 by address, IPv6 by its /56 (configurable), behind a trusted proxy the address it names")
    func clients() {
        let limit = NewPlaceLimit(perHour: 1, trustedProxies: TrustedProxies([IPNetwork("10.0.0.0/8")!]), now: { 0 })
        #expect(limit.acquire(peer: "2001:db8:1:100::1", forwardedFor: []) == nil)
        #expect(limit.acquire(peer: "2001:db8:1:1ff::2", forwardedFor: []) != nil)
        #expect(limit.acquire(peer: "2001:db8:1:200::1", forwardedFor: []) == nil)
        #expect(limit.acquire(peer: "192.0.2.1", forwardedFor: []) == nil)
        #expect(limit.acquire(peer: "192.0.2.2", forwardedFor: []) == nil)
        #expect(limit.acquire(peer: "10.1.1.1", forwardedFor: ["192.0.2.1"]) != nil)
        #expect(limit.acquire(peer: "10.1.1.1", forwardedFor: ["198.51.100.9"]) == nil)
        #expect(IPNetwork.clientKey("2001:db8:1:1ff::2", ipv6PrefixLength: 48) == IPNetwork.clientKey("2001:db8:1:2ff::2", ipv6PrefixLength: 48))
        #expect(IPNetwork.clientKey(nil, ipv6PrefixLength: 56) == "unknown")
    }
}
