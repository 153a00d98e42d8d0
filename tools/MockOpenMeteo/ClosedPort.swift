import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback TCP port that refuses connections for as long as this value lives: a socket is
/// bound to it and never listens. A port freed by a stopped server is not enough for a test of
/// "a server that is not there": on a busy machine another test's server can take it before
/// the test connects, and the connection is then answered.
public final class ClosedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClosedPortError(step: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw ClosedPortError(step: "bind", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw ClosedPortError(step: "getsockname", code: code)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}

/// A socket call that failed while reserving a closed port.
public struct ClosedPortError: Error, CustomStringConvertible {
    public let step: String
    public let code: Int32
    public var description: String { "\(step) failed: errno \(code)" }
}
