import FrostboxCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's resolver (`getaddrinfo`, on NIO's thread pool), with a deadline: a lookup
/// that outlasts it is answered with an error at once (a registration waits no longer for a
/// slow DNS), and its thread finishes the lookup on its own.
public struct SystemWebPushResolver: WebPushResolver {
    /// A blocking lookup of `host`'s addresses for `port`.
    package typealias Lookup = @Sendable (_ host: String, _ port: Int) throws -> [SocketAddress]

    /// The longest a lookup may take.
    public let deadline: Duration
    private let lookup: Lookup

    public init(deadline: Duration = .seconds(3)) {
        self.init(deadline: deadline, lookup: Self.systemLookup)
    }

    /// With another blocking lookup (tests).
    package init(deadline: Duration, lookup: @escaping Lookup) {
        self.deadline = deadline
        self.lookup = lookup
    }

    public func addresses(of host: String, port: Int) async throws -> [SocketAddress] {
        if let literal = try? SocketAddress(ipAddress: host, port: port) { return [literal] }
        let race = FirstOutcome<[SocketAddress]>()
        let (deadline, lookup) = (self.deadline, self.lookup)
        // Unstructured on purpose: a structured child would be awaited, lookup and all.
        let timer = Task {
            try await Task.sleep(for: deadline)
            race.settle(.failure(WebPushResolutionError(host: host, reason: "no DNS answer within \(deadline)")))
        }
        Task {
            // getaddrinfo blocks: NIO's thread pool, never an event loop or the cooperative pool.
            do {
                race.settle(.success(try await NIOThreadPool.singleton.runIfActive { try lookup(host, port) }))
            } catch {
                race.settle(.failure(error))
            }
            timer.cancel()
        }
        return try await race.value()
    }

    /// `getaddrinfo(3)`: every TCP address of `host`, in the system's order.
    static let systemLookup: Lookup = { host, port in
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw WebPushResolutionError(host: host, reason: "does not resolve (getaddrinfo \(status))") }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return found
    }
}
