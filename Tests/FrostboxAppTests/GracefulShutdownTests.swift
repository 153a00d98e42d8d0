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
            // A loaded whole run (two cores, hundreds of tests) can hold a first answer well past 30 s.
            let stats = try await LoopbackConnection.request(
                port: port, "GET", "/admin/stats", headers: ["Authorization: Bearer \(Self.secret)"], readTimeout: 120)
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
