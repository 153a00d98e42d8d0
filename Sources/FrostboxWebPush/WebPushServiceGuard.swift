import FrostboxCore
import Logging
import NIOCore

/// Keeps Web Push to the allowed push services, at registration and at every connection: an
/// endpoint's origin must be on the allow-list, and its host must not resolve to a private,
/// loopback, link-local or multicast address (but for a push service configured as private).
/// A registration also needs a p256dh that is a point on P-256.
public struct WebPushServiceGuard: WebPushAdmission {
    public let services: WebPushServices
    private let resolver: any WebPushResolver
    private let logger: Logger

    public init(services: WebPushServices, resolver: any WebPushResolver = SystemWebPushResolver(), logger: Logger) {
        self.services = services
        self.resolver = resolver
        self.logger = logger
    }

    public func admit(_ subscription: WebPushSubscription) async throws(ValidationError) {
        let endpoint = subscription.endpoint
        guard services.allows(endpoint) else {
            throw ValidationError(
                .endpointNotAllowed, field: "endpoint",
                "endpoint's push service \(endpoint.origin) is not one this server sends to (allowed: "
                    + services.allowed.map(\.description).joined(separator: ", ") + ")")
        }
        guard (try? WebPushSubscriberKeys(p256dh: subscription.p256dh, auth: subscription.auth)) != nil else {
            throw ValidationError(.invalidField, field: "keys.p256dh", "keys.p256dh is not a point on the P-256 curve")
        }
        guard !services.allowsPrivate(endpoint) else { return }
        let addresses: [SocketAddress]
        do {
            addresses = try await resolver.addresses(of: endpoint.host, port: endpoint.port)
        } catch {
            // Not known now (a resolver hiccup says nothing about the subscription): taken, and
            // every connection is checked again before it is made.
            logger.debug("push service not resolved at registration", metadata: ["origin": "\(endpoint.origin)", "error": "\(error)"])
            return
        }
        if addresses.contains(where: WebPushAddresses.isPrivate) {
            throw Self.privateRefusal(endpoint)
        }
    }

    /// The addresses to connect to for `endpoint`, in the resolver's order (the transport tries
    /// the next when one does not connect, and refuses an empty list), once none of them is
    /// private (a DNS answer can change after registration). Throws when the push service is
    /// not allowed or not reachable.
    public func addresses(for host: String, port: Int, origin: String) async throws -> [SocketAddress] {
        let addresses = try await resolver.addresses(of: host, port: port)
        if !services.privateAllowed.contains(origin), addresses.contains(where: WebPushAddresses.isPrivate) {
            throw WebPushResolutionError(host: host, reason: "not connecting: it resolves to a private, loopback, link-local or multicast address")
        }
        return addresses
    }

    static func privateRefusal(_ endpoint: WebPushEndpoint) -> ValidationError {
        ValidationError(
            .endpointNotAllowed, field: "endpoint",
            "endpoint's push service \(endpoint.origin) resolves to a private, loopback, link-local or multicast address")
    }
}
