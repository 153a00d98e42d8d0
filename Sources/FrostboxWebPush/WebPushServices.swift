import FrostboxCore

/// The push services browsers' endpoints may point at: an allow-list of origins
/// (`https://host[:port]`, `*.` for any subdomain), and the few of them that may be at private
/// addresses (a self-hosted push service inside the network). The server POSTs to whatever
/// endpoint a client registered, so this list is what keeps it from being pointed at the
/// network it runs in.
public struct WebPushServices: Sendable, Hashable {
    /// Google's (Chrome, Edge on Android, …), Mozilla's (Firefox), Apple's (Safari) and
    /// Microsoft's (Edge on Windows) push services.
    public static let publicServices = [
        "https://fcm.googleapis.com", "https://*.push.services.mozilla.com", "https://*.push.apple.com", "https://*.notify.windows.com",
    ]

    /// Origins an endpoint may have.
    public let allowed: [OriginPattern]
    /// Origins that may resolve to private, loopback or link-local addresses.
    public let privateAllowed: Set<String>

    /// - Parameters:
    ///   - allowed: origin patterns (`https://fcm.googleapis.com`, `https://*.push.apple.com`).
    ///   - privateOrigins: exact origins of self-hosted push services; they are allowed too.
    public init(allowed: [String] = publicServices, privateOrigins: [String] = []) throws(WebPushServicesError) {
        var patterns: [OriginPattern] = []
        for text in allowed + privateOrigins {
            guard let pattern = OriginPattern(text) else { throw WebPushServicesError(entry: text) }
            patterns.append(pattern)
        }
        var exact: Set<String> = []
        for text in privateOrigins {
            guard let pattern = OriginPattern(text), !pattern.anySubdomain else { throw WebPushServicesError(entry: text) }
            exact.insert(pattern.origin)
        }
        self.allowed = patterns
        self.privateAllowed = exact
    }

    /// Whether an endpoint's push service is on the list.
    public func allows(_ endpoint: WebPushEndpoint) -> Bool {
        allowed.contains { $0.matches(endpoint) }
    }

    /// Whether the endpoint's push service may be at a private address.
    public func allowsPrivate(_ endpoint: WebPushEndpoint) -> Bool {
        privateAllowed.contains(endpoint.origin)
    }

    /// One allow-list entry: `https://host[:port]`, the host optionally `*.domain` (any
    /// subdomain of it, not the domain itself).
    public struct OriginPattern: Sendable, Hashable, CustomStringConvertible {
        /// The host, or the domain after `*.`, lower case.
        public let host: String
        public let port: Int
        public let anySubdomain: Bool

        init?(_ text: String) {
            var rest = Substring(text.lowercased())
            guard rest.hasPrefix("https://") else { return nil }
            rest = rest.dropFirst("https://".count)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            anySubdomain = rest.hasPrefix("*.")
            if anySubdomain { rest = rest.dropFirst(2) }
            // The same parser as registrations' endpoints, so both read a host alike.
            guard !rest.contains("/"), !rest.isEmpty, let parsed = try? WebPushEndpoint("https://" + rest + "/") else { return nil }
            host = parsed.host
            port = parsed.port
        }

        /// `https://host[:port]` (`*.` kept).
        public var description: String {
            (anySubdomain ? "https://*." : "https://") + (host.contains(":") ? "[\(host)]" : host) + (port == 443 ? "" : ":\(port)")
        }

        /// The origin an endpoint matching an exact pattern has.
        var origin: String { description }

        func matches(_ endpoint: WebPushEndpoint) -> Bool {
            guard endpoint.port == port else { return false }
            return anySubdomain ? endpoint.host.hasSuffix("." + host) : endpoint.host == host
        }
    }
}

/// An allow-list entry that is not an https origin.
public struct WebPushServicesError: Error, Sendable, CustomStringConvertible {
    public let entry: String
    public var description: String {
        "webpush push service \"\(entry)\" is not an https origin (https://host or https://host:port; https://*.domain for its subdomains, "
            + "not for a private push service)"
    }
}
