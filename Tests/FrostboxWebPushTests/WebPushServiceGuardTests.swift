import Foundation
import FrostboxCore
import Logging
import NIOCore
import Synchronization
import Testing

@testable import FrostboxWebPush

/// The guard against server-side request forgery (issue #46): only allowed push services, and
/// none at a private address unless configured as private — at registration and again before
/// every connection, since a DNS answer can change.
@Suite("Web Push service guard")
struct WebPushServiceGuardTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    /// Answers from a table; a host not in it does not resolve.
    struct TableResolver: WebPushResolver {
        let table: [String: [String]]
        func addresses(of host: String, port: Int) async throws -> [SocketAddress] {
            guard let addresses = table[host] else { throw WebPushResolutionError(host: host, reason: "unknown") }
            return try addresses.map { try SocketAddress(ipAddress: $0, port: port) }
        }
    }

    static let resolver = TableResolver(table: [
        "fcm.googleapis.com": ["142.250.74.10"], "updates.push.services.mozilla.com": ["34.117.65.55", "2600:1901:0:92a9::"],
        "web.push.apple.com": ["10.1.2.3"], "wns2-db5p.notify.windows.com": ["::ffff:127.0.0.1"], "push.example.org": ["192.168.1.20"],
    ])

    func guardFor(_ services: WebPushServices) -> WebPushServiceGuard {
        WebPushServiceGuard(services: services, resolver: Self.resolver, logger: Logger(label: "test"))
    }

    func subscription(_ endpoint: String) throws -> WebPushSubscription {
        try WebPushSubscription(endpoint: endpoint, p256dh: Self.p256dh, auth: Self.auth)
    }

    @Test(
        "the public push services are allowed; other origins, ports and look-alike hosts are not",
        arguments: [
            ("https://fcm.googleapis.com/fcm/send/x", true), ("https://updates.push.services.mozilla.com/wpush/v2/x", true),
            ("https://web.push.apple.com/x", true), ("https://wns2-db5p.notify.windows.com/w/?token=x", true),
            ("https://fcm.googleapis.com:8443/x", false), ("https://push.apple.com/x", false), ("https://evilpush.apple.com/x", false),
            ("https://fcm.googleapis.com.evil.example/x", false), ("https://127.0.0.1/x", false), ("https://push.example.org/x", false),
        ])
    func allowList(endpoint: String, allowed: Bool) throws {
        #expect(try WebPushServices().allows(try WebPushEndpoint(endpoint)) == allowed)
    }

    @Test("an allowed push service at a private address is refused at registration, IPv4-mapped IPv6 too; one that does not resolve now is taken")
    func privateAddresses() async throws {
        let guarded = guardFor(try WebPushServices())
        try await guarded.admit(try subscription("https://fcm.googleapis.com/fcm/send/x"))
        try await guarded.admit(try subscription("https://updates.push.services.mozilla.com/wpush/v2/x"))
        for endpoint in ["https://web.push.apple.com/x", "https://wns2-db5p.notify.windows.com/w/x"] {
            let refused = try subscription(endpoint)
            await #expect(throws: ValidationError.self, "\(endpoint)") { try await guarded.admit(refused) }
            do throws(ValidationError) {
                try await guarded.admit(refused)
            } catch {
                #expect(error.code == .endpointNotAllowed && error.message.contains("private"))
            }
        }
        try await guarded.admit(try subscription("https://other.push.apple.com/x"))
    }

    @Test("a configured private push service may be at a private address; the allow-list refuses the rest with the list in its message")
    func selfHosted() async throws {
        let services = try WebPushServices(allowed: [], privateOrigins: ["https://push.example.org"])
        let guarded = guardFor(services)
        try await guarded.admit(try subscription("https://push.example.org/p/1"))
        _ = try await guarded.addresses(for: "push.example.org", port: 443, origin: "https://push.example.org")
        let google = try subscription("https://fcm.googleapis.com/fcm/send/x")
        do throws(ValidationError) {
            try await guarded.admit(google)
            Issue.record("an origin not on the list was taken")
        } catch {
            #expect(error.code == .endpointNotAllowed && error.message.contains("https://push.example.org"))
        }
        #expect(throws: WebPushServicesError.self) { try WebPushServices(privateOrigins: ["https://*.example.org"]) }
        #expect(throws: WebPushServicesError.self) { try WebPushServices(allowed: ["http://push.example.org"]) }
    }

    @Test("at connection time a host that now resolves to a private address is refused; a public one is connected to")
    func connectTime() async throws {
        let guarded = guardFor(try WebPushServices())
        let addresses = try await guarded.addresses(for: "fcm.googleapis.com", port: 443, origin: "https://fcm.googleapis.com")
        #expect(addresses.map(\.ipAddress) == ["142.250.74.10"] && addresses.first?.port == 443)
        await #expect(throws: WebPushResolutionError.self) {
            try await guarded.addresses(for: "web.push.apple.com", port: 443, origin: "https://web.push.apple.com")
        }
    }

    @Test("a p256dh of the right form that is not on the curve is refused at registration")
    func offCurve() async throws {
        var bytes = Base64URL.decode(Self.p256dh)!
        bytes[64] ^= 1
        let subscription = try WebPushSubscription(endpoint: "https://fcm.googleapis.com/x", p256dh: Base64URL.encode(bytes), auth: Self.auth)
        let guarded = guardFor(try WebPushServices())
        do throws(ValidationError) {
            try await guarded.admit(subscription)
            Issue.record("a point off the curve was taken")
        } catch {
            #expect(error.field == "keys.p256dh")
        }
    }

    @Test(
        "address ranges: private, loopback, link-local, CGNAT, multicast and reserved are private, also reached through NAT64 or 6to4; public ones are not",
        arguments: [
            ("10.0.0.1", true), ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.1", false), ("192.168.0.1", true), ("127.0.0.1", true),
            ("169.254.169.254", true), ("100.64.0.1", true), ("0.0.0.0", true), ("224.0.0.1", true), ("255.255.255.255", true),
            ("8.8.8.8", false), ("142.250.74.10", false), ("::1", true), ("::", true), ("fe80::1", true), ("fd00::1", true), ("ff02::1", true),
            ("::ffff:10.0.0.1", true), ("::ffff:8.8.8.8", false), ("2001:db8::1", true), ("2600:1901:0:92a9::", false),
            ("::7f00:1", true), ("64:ff9b::a9fe:a9fe", true), ("64:ff9b::808:808", false), ("64:ff9b:1::1", true), ("2002:7f00:1::", true),
            ("2002:808:808::1", false), ("100::1", true), ("fec0::1", true),
        ])
    func ranges(address: String, isPrivate: Bool) throws {
        #expect(WebPushAddresses.isPrivate(try SocketAddress(ipAddress: address, port: 443)) == isPrivate)
    }
}

@Suite("The system resolver's deadline")
struct SystemWebPushResolverTests {
    final class Flag: Sendable {
        private let raised = Mutex(false)
        func raise() { raised.withLock { $0 = true } }
        var isRaised: Bool { raised.withLock { $0 } }
    }

    @Test("a lookup that outlasts the deadline is answered with an error at once, its thread left to finish it")
    func deadline() async throws {
        let finished = Flag()
        let resolver = SystemWebPushResolver(deadline: .milliseconds(50)) { _, _ in
            usleep(2_000_000)
            finished.raise()
            return []
        }
        await #expect(throws: WebPushResolutionError.self) { try await resolver.addresses(of: "slow.example.org", port: 443) }
        #expect(!finished.isRaised, "answered before the lookup ended")
    }

    @Test("a lookup within the deadline gives its addresses; its error is the caller's; an IP literal is not looked up")
    func answers() async throws {
        let resolver = SystemWebPushResolver(deadline: .seconds(30)) { host, port in
            guard host == "push.example.org" else { throw WebPushResolutionError(host: host, reason: "does not resolve") }
            return [try SocketAddress(ipAddress: "34.117.65.55", port: port)]
        }
        #expect(try await resolver.addresses(of: "push.example.org", port: 443).map(\.ipAddress) == ["34.117.65.55"])
        await #expect(throws: WebPushResolutionError.self) { try await resolver.addresses(of: "nowhere.example.org", port: 443) }
        #expect(try await resolver.addresses(of: "2600:1901:0:92a9::", port: 8443).first?.port == 8443)
    }
}
