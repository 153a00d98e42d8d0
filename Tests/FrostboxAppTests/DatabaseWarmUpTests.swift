import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import FrostboxApp

/// `serve` accepts connections only once the database's pool has a connection ready.
@Suite("Start-up: the server waits for the database's pool", .timeLimit(.minutes(5)))
struct DatabaseWarmUpTests {
    @Test("the server starts after the warm-up returns, not before")
    func serverStartsAfterWarmUp() async throws {
        let events = Events()
        let server = StartsWhenDatabaseWarm(
            base: RecordingService(events: events, name: "server"),
            warmUp: {
                events.add("warming up")
                await Task.yield()
                events.add("warm")
            })
        try await server.run()
        #expect(events.all == ["warming up", "warm", "server"])
    }

    @Test("shut down while the pool warms up: the server never starts")
    func shutdownDuringWarmUp() async throws {
        let events = Events()
        let warming = AsyncStream.makeStream(of: Void.self)
        let server = StartsWhenDatabaseWarm(
            base: RecordingService(events: events, name: "server"),
            warmUp: {
                warming.continuation.yield()
                // Still warming up when the shutdown comes.
                try? await gracefulShutdown()
                events.add("warm")
            })
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: server)], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await _ in warming.stream { break }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(events.all == ["warm"], "the server was not started")
    }
}

/// What happened, in order.
final class Events: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ event: String) { list.withLock { $0.append(event) } }
    var all: [String] { list.withLock { $0 } }
}

/// Records that it ran, and returns.
struct RecordingService: Service {
    let events: Events
    let name: String
    func run() async throws { events.add(name) }
}
