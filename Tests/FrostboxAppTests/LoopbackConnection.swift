import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 client over a loopback TCP socket, enough to hold a request half-sent.
final class LoopbackConnection: Sendable {
    let descriptor: Int32

    /// Connects from `source` (any address of 127.0.0.0/8: a client of its own to the server's
    /// per-address limits); a read waits at most `readTimeout` seconds.
    init(port: Int, source: String? = nil, readTimeout: Int = 30) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(descriptor)
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        // A server that never answers fails the test instead of hanging it.
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        while !bytes.isEmpty {
            let sent = Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            guard sent > 0 else { throw POSIXError(.EPIPE) }
            bytes.removeFirst(sent)
        }
    }

    /// Everything until the server closes the connection, read on a thread of its own: a
    /// blocking read must not hold one of the few threads the server's tasks run on.
    func readAll() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try self.readAllBlocking() }) }
        }
    }

    func readAllBlocking() throws -> String {
        readUntilClosedBlocking().text
    }

    /// Reads until a response head has arrived whole (a blank line), or the connection ends.
    func readResponseHead() async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = [UInt8]()
                var byte: UInt8 = 0
                while !data.suffix(4).elementsEqual([13, 10, 13, 10]), recv(self.descriptor, &byte, 1, 0) == 1 { data.append(byte) }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// Everything until the server closes the connection (`closed`), or until a read waits
    /// past the read timeout (`closed` false).
    func readUntilClosed() async -> (text: String, closed: Bool) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.readUntilClosedBlocking()) }
        }
    }

    private func readUntilClosedBlocking() -> (text: String, closed: Bool) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                data += buffer[0..<count]
                continue
            }
            // 0: the server closed; a reset is a close too; EAGAIN: the read timed out.
            let closed = count == 0 || errno == ECONNRESET
            return (String(decoding: data, as: UTF8.self), closed)
        }
    }

    /// One request with `Connection: close`; the whole response.
    static func request(
        port: Int, _ method: String, _ path: String, headers: [String] = [], body: String? = nil, source: String? = nil, readTimeout: Int = 30
    ) async throws -> String {
        let connection = try LoopbackConnection(port: port, source: source, readTimeout: readTimeout)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" } else { head += "Content-Length: 0\r\n" }
        try connection.send(head + "\r\n" + (body ?? ""))
        return try await connection.readAll()
    }
}
