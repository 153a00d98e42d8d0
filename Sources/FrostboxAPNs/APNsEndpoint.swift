import FrostboxCore

/// Where an app's pushes go: Apple's production or sandbox gateway, or any host:port that
/// speaks the same protocol (the local mock, a staging proxy).
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address.
    public var host: String
    /// TCP port (APNs: 443, or 2197 where 443 is blocked).
    public var port: Int

    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    /// `api.push.apple.com:443`.
    public static let production = APNsEndpoint(host: "api.push.apple.com")
    /// `api.sandbox.push.apple.com:443`, for development builds of the app.
    public static let sandbox = APNsEndpoint(host: "api.sandbox.push.apple.com")

    /// Apple's gateway for `environment`.
    public static func apple(_ environment: PushEnvironment) -> APNsEndpoint {
        switch environment {
        case .production: .production
        case .sandbox: .sandbox
        }
    }

    /// Parses `host:port` or `host` (port 443); IPv6 literals in brackets.
    public init?(parsing text: String) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                self.init(host: host)
            } else if rest.first == ":", let port = Int(rest.dropFirst()), (1...65535).contains(port) {
                self.init(host: host, port: port)
            } else {
                return nil
            }
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where !text.isEmpty:
            self.init(host: text)
        case 2 where !parts[0].isEmpty:
            guard let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
            self.init(host: String(parts[0]), port: port)
        default:
            return nil
        }
    }

    /// The host as a URL or `:authority` writes it (IPv6 literals in brackets).
    var hostHeader: String { host.contains(":") ? "[\(host)]" : host }

    /// An IP literal rather than a name (no SNI is sent for those).
    var isIPAddress: Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.utf8.allSatisfy { $0 == 0x2E || (0x30...0x39).contains($0) })
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
