/// Where a gateway's connections go: a host name or IP address and a TCP port.
public struct HTTP2Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address.
    public var host: String
    /// TCP port.
    public var port: Int

    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
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
    package var hostHeader: String { host.contains(":") ? "[\(host)]" : host }

    /// `:authority`: the host, and the port unless it is 443.
    package var authority: String { port == 443 ? hostHeader : "\(hostHeader):\(port)" }

    /// An IP literal rather than a name (no SNI is sent for those).
    package var isIPAddress: Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.utf8.allSatisfy { $0 == 0x2E || (0x30...0x39).contains($0) })
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
