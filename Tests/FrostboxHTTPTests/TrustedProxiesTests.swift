import FrostboxHTTP
import Testing

@Suite("Trusted proxies and X-Forwarded-For")
struct TrustedProxiesTests {
    let proxies = TrustedProxies([IPNetwork("10.0.0.0/8")!, IPNetwork("::1")!, IPNetwork("2001:db8:1::/48")!])

    @Test("networks: IPv4 and IPv6 prefixes, bare hosts, IPv4-mapped addresses; anything else is refused")
    func networks() throws {
        #expect(IPNetwork("10.0.0.0/8")?.description == "10.0.0.0/8")
        #expect(IPNetwork("::1")?.description == "::1/128")
        for bad in ["", "proxy.local", "10.0.0.0/33", "10.0.0.0/-1", "::1/129", "10.0.0.0/x", "1.2.3"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
        #expect(TrustedProxies.parse(["127.0.0.1", " ::1 ", ""]).map(\.networks.count) == .success(2))
        #expect(TrustedProxies.parse(["127.0.0.1", "nope"]) == .failure(TrustedProxies.BadEntry(entry: "nope")))
    }

    @Test("a trusted peer's header names the client: the right-most address that is not a trusted proxy")
    func trustedPeer() {
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["198.51.100.7, 203.0.113.9"]) == "203.0.113.9")
        // Several proxies, each appending the peer it saw; the header split over two lines.
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["198.51.100.7, 203.0.113.9", "10.9.9.9"]) == "203.0.113.9")
        #expect(proxies.client(peer: "::1", forwardedFor: ["2001:db8:1::5, 2001:db8:2::7"]) == "2001:db8:2::7")
        #expect(proxies.client(peer: "::ffff:10.0.0.1", forwardedFor: ["192.0.2.4"]) == "192.0.2.4")
    }

    @Test("values that are not addresses are ignored; a header of only proxies or garbage leaves the peer")
    func garbage() {
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["192.0.2.4, whatever-1"]) == "192.0.2.4")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["whatever-2"]) == "10.1.2.3")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["10.2.2.2"]) == "10.1.2.3")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: []) == "10.1.2.3")
    }

    @Test("any other peer is itself, whatever it claims; with no proxies configured nobody is believed")
    func untrustedPeer() {
        #expect(proxies.client(peer: "192.0.2.50", forwardedFor: ["198.51.100.7"]) == "192.0.2.50")
        #expect(TrustedProxies().client(peer: "10.1.2.3", forwardedFor: ["198.51.100.7"]) == "10.1.2.3")
        #expect(proxies.client(peer: nil, forwardedFor: ["198.51.100.7"]) == nil)
    }
}
