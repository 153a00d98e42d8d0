import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Logging
import MockOpenMeteo
import ServiceLifecycle
import Synchronization
import Testing

@testable import FrostboxApp

#if canImport(Glibc)
    import Glibc
#endif

/// The whole `serve` service group on a loopback port 0, driven over real sockets.
// Its polling loops wait for events (a request in flight, a run started); the time limit ends
// a test whose event never comes instead of hanging the run.
@Suite("Graceful shutdown", .timeLimit(.minutes(3)))
struct GracefulShutdownTests {
    static let secret = "shutdown-admin-token-0123456789"

    /// Runs `body` with the service group of a fresh database, then checks that the group
    /// ended after `body` triggered its shutdown.
    static func withServer(
        configure: (inout FrostboxSettings) -> Void = { _ in },
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (_ port: Int, _ components: FrostboxApplication.Components, _ group: ServiceGroup) async throws -> Void,
        afterStop: (_ components: FrostboxApplication.Components) async throws -> Void = { _ in }
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = FrostboxSettings()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        config.placesSeed = nil
        config.notifier.firstRunDelay = .seconds(3_600)
        config.adminToken = AdminToken(secret)
        configure(&config)
        let components = try FrostboxApplication.Components(config: config, logger: logger)
        let bound = AsyncStream<Int>.makeStream()
        let group = try await FrostboxApplication.serviceGroup(
            config: config, components: components, logger: logger, signals: [], onListening: { bound.continuation.yield($0) })
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var ports = bound.stream.makeAsyncIterator()
            let port = try #require(await ports.next())
            try await body(port, components, group)
            // The group must end by itself once shut down.
            try await tasks.next()
        }
        // Still inside the database's directory (a later start of the same database).
        try await afterStop(components)
    }

    @Test("a request in flight when shutdown starts is still answered, and its write is durable")
    func inFlightRequestFinishes() async throws {
        let token = "00112233445566778899aabbccddeeff"
        try await Self.withServer { port, components, group in
            let body = #"{"token": "\#(token)"}"#
            let connection = try LoopbackConnection(port: port)
            try connection.send("POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            try connection.send(String(body.prefix(5)))
            // The request has reached the handler once the rate limiter has seen its client.
            while components.operations.rateLimiter.trackedClients == 0 { try await Task.sleep(for: .milliseconds(5)) }
            await group.triggerGracefulShutdown()
            try connection.send(String(body.dropFirst(5)))
            let response = try await connection.readAll()
            #expect(response.hasPrefix("HTTP/1.1 201"), "\(response)")
        }
    }

    @Test("even at trace level, starting and stopping the services logs no API key, admin token or signing key")
    func serviceLogsCarryNoSecrets() async throws {
        let logs = RecordingLogHandler.Store()
        let apiKey = "om-api-key-0123456789abcdef"
        try await Self.withServer(configure: { $0.forecasts.apiKey = apiKey }, logger: logs.logger(level: .trace)) { port, _, group in
            let stats = try await LoopbackConnection.request(port: port, "GET", "/admin/stats", headers: ["Authorization: Bearer \(Self.secret)"])
            #expect(stats.hasPrefix("HTTP/1.1 200"))
            await group.triggerGracefulShutdown()
        }
        #expect(logs.all.contains { $0.metadata["sl-services"] != nil }, "ServiceLifecycle's service list was logged")
        for line in logs.all.map(\.description) {
            #expect(!line.contains(apiKey), "\(line)")
            #expect(!line.contains(Self.secret), "\(line)")
        }
    }

    @Test("a notify run started through the admin API stops with the group: summary stored, every alert delivered or pending, the next run sends the rest")
    func triggeredRunStopsConsistently() async throws {
        let mock = MockOpenMeteo(
            scenario: MockScenario(frost: [FrostSpot(latitude: 60.17, longitude: 24.94, minimumC: -6)]),
            logger: Logger(label: "mock", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await mock.withRunning { baseURL in
            try await Self.withServer(configure: { $0.forecasts.baseURL = baseURL }) { port, components, group in
                for i in 0..<20 {
                    let hex = String(0xdef000 + i, radix: 16)
                    let token = String(repeating: "0", count: 32 - hex.count) + hex
                    _ = try await LoopbackConnection.request(
                        port: port, "POST", "/v1/devices/\(token)/subscriptions", body: #"{"latitude": 60.17, "longitude": 24.94, "name": "Home"}"#)
                }
                let started = try await LoopbackConnection.request(port: port, "POST", "/admin/notify", headers: ["Authorization: Bearer \(Self.secret)"])
                #expect(started.hasPrefix("HTTP/1.1 202"), "\(started)")
                await group.triggerGracefulShutdown()
            } afterStop: { components in
                // Stopped after its current batch (or done already): stored, and every alert
                // it planned is either delivered or still pending in the outbox.
                let run = try #require(try await components.notifier.store.recentRuns(limit: 1).first)
                #expect(run.status == .interrupted || run.status == .completed)
                let pending = try await components.database.outboxPending()
                #expect(run.alertsDelivered + pending == run.alertsPlanned)
                // The next run (the next start) sends what is left: every alert of the 20
                // devices (tonight and tomorrow night) delivered once over both runs.
                guard case .completed(let next) = try await components.notifier.notifier.run() else {
                    Issue.record("the next run should start")
                    return
                }
                #expect(run.alertsPlanned + next.alertsPlanned >= 20)
                #expect(run.alertsDelivered + next.alertsDelivered == run.alertsPlanned + next.alertsPlanned, "\(run.line) / \(next.line)")
                #expect(try await components.database.outboxPending() == 0)
            }
        }
    }
}

/// A blocking HTTP/1.1 client over a loopback TCP socket, enough to hold a request half-sent.
final class LoopbackConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
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
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
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
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// One request with `Connection: close`; the whole response.
    static func request(port: Int, _ method: String, _ path: String, headers: [String] = [], body: String? = nil) async throws -> String {
        let connection = try LoopbackConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" } else { head += "Content-Length: 0\r\n" }
        try connection.send(head + "\r\n" + (body ?? ""))
        return try await connection.readAll()
    }
}
