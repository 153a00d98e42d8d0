/// A browser's Web Push subscription, as `PushSubscription.toJSON()` gives it: the push
/// service URL that takes its messages and the keys its messages are encrypted to (RFC 8291).
/// Checked for form here; whether the endpoint's push service is allowed and the key is a
/// point on the curve is the `WebPushAdmission`'s to say.
public struct WebPushSubscription: Sendable, Hashable {
    /// The push service URL.
    public let endpoint: WebPushEndpoint
    /// The browser's P-256 public key: 65 bytes, uncompressed, base64url without padding.
    public let p256dh: String
    /// The browser's authentication secret: 16 bytes, base64url without padding.
    public let auth: String

    /// Longest endpoint URL accepted (the push services' are under 500 bytes).
    public static let maximumEndpointLength = 2_048

    /// Validates what a browser handed over; keys are kept in canonical base64url.
    public init(endpoint: String, p256dh: String, auth: String) throws(ValidationError) {
        self.endpoint = try WebPushEndpoint(endpoint)
        guard let key = Base64URL.decode(p256dh), key.count == 65, key[0] == 0x04 else {
            throw ValidationError(
                .invalidField, field: "keys.p256dh", "keys.p256dh must be a P-256 public key: 65 bytes, uncompressed (0x04 …), base64url")
        }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else {
            throw ValidationError(.invalidField, field: "keys.auth", "keys.auth must be 16 bytes, base64url")
        }
        self.p256dh = Base64URL.encode(key)
        self.auth = Base64URL.encode(secret)
    }

    /// For values read back from our own storage.
    public init(trustedEndpoint endpoint: String, p256dh: String, auth: String) {
        self.endpoint = WebPushEndpoint(trusted: endpoint)
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// A push service URL: `https`, with a host, no user info, no fragment. Its origin names the
/// push service (the VAPID audience, the allow-list's unit, one set of connections).
public struct WebPushEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The URL in one spelling: scheme and host in lower case, the port only when not 443, the
    /// path and query as the browser gave them (as stored, when read back).
    public let url: String
    /// The host, lower case (IPv6 literals without brackets).
    public let host: String
    /// The TCP port (443 unless the URL says).
    public let port: Int
    /// The path and query, from the first `/` after the authority.
    public let path: String

    /// `https://host` or `https://host:port` (the port only when not 443). Kept, not built per
    /// use: each push looks up its gateway and VAPID token by it.
    public let origin: String

    private static func origin(host: String, port: Int) -> String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? "https://\(hostPart)" : "https://\(hostPart):\(port)"
    }

    /// Never the whole URL: its path names the subscription. The origin and a hash.
    public var description: String { origin + "/#" + DeviceToken.hashPrefix(url) }

    public init(_ raw: String) throws(ValidationError) {
        guard let parsed = Self.parse(raw) else {
            throw ValidationError(
                .invalidField, field: "endpoint",
                "endpoint must be an https URL of a push service, at most \(WebPushSubscription.maximumEndpointLength) bytes")
        }
        (host, port, path) = (parsed.host, parsed.port, parsed.path)
        origin = Self.origin(host: host, port: port)
        // Kept in one spelling: stored, and the device's identity (the stores' checks compare
        // it as written), so `HTTPS://Host/p` and `https://host/p` are one subscription.
        url = origin + path
        guard url.utf8.count <= WebPushSubscription.maximumEndpointLength else {
            throw ValidationError(
                .invalidField, field: "endpoint", "endpoint must be at most \(WebPushSubscription.maximumEndpointLength) bytes")
        }
    }

    init(trusted raw: String) {
        let parsed = Self.parse(raw) ?? (host: "", port: 443, path: "/")
        (url, host, port, path) = (raw, parsed.host, parsed.port, parsed.path)
        origin = Self.origin(host: host, port: port)
    }

    private static func parse(_ raw: String) -> (host: String, port: Int, path: String)? {
        let scheme = "https://"
        guard raw.utf8.count <= WebPushSubscription.maximumEndpointLength, raw.utf8.count > scheme.utf8.count,
            raw.prefix(scheme.count).lowercased() == scheme,
            raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        let rest = raw.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty { path = "/" } else if path.first == "?" { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let tail = authority[authority.index(after: close)...]
            if !tail.isEmpty {
                guard tail.first == ":" else { return nil }
                portText = tail.dropFirst()
            }
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard
                host.utf8.allSatisfy({ byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                        UInt8(ascii: "-"), UInt8(ascii: "."):
                        true
                    default: false
                    }
                })
            else { return nil }
        }
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        if authority.first != "[" {
            // A host name's labels: none empty (`.push.apple.com`), none over 63, none that
            // begins or ends with a hyphen.
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 && $0.first != "-" && $0.last != "-" }) else { return nil }
        }
        var port = 443
        if let portText {
            guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let number = Int(portText), (1...65535).contains(number)
            else { return nil }
            port = number
        }
        return (host.lowercased(), port, path)
    }
}

/// Decides whether a browser subscription may be registered: its endpoint's push service is
/// on the allow-list and does not resolve to a private address, and its key is a point on
/// the curve. Throws a `ValidationError` (a 400 naming the rule) when not.
public protocol WebPushAdmission: Sendable {
    /// Checks `subscription`; returns when it may be registered.
    func admit(_ subscription: WebPushSubscription) async throws(ValidationError)
}

/// Where the senders of Web Push find each device's subscription (its endpoint and keys):
/// the devices' own store.
public protocol WebPushDirectory: Sendable {
    /// The subscriptions of those of `tokens` that are web devices and still registered.
    func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription]
}
