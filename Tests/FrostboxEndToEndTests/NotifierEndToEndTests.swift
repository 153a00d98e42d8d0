import Crypto
import Foundation
import FrostboxAPNs
import FrostboxApp
import FrostboxCore
import FrostboxNotifier
import FrostboxSQLite
import Logging
import MockAPNs
import MockOpenMeteo
import NIOPosix
import Synchronization
import Testing

/// The notifier end to end: real SQLite files, the real forecast provider against the mock
/// Open-Meteo and the real APNs client against the mock APNs (HTTP/2, TLS, token auth),
/// both on free loopback ports.
@Suite("Notifier end to end")
struct NotifierEndToEndTests {
    /// Loops of the tests' APNs routers, apart from the singleton the in-process HTTP servers of
    /// other suites accept on (a gateway spreads over every loop of its group).
    static let apnsLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// 2026-07-15T12:00Z: 15:00 in Helsinki, a mild summer day, so only the frost spots freeze.
    static let now: Int64 = 1_784_116_800
    static let helsinki = try! Coordinate(latitude: 60.17, longitude: 24.94)
    static let garden = try! Coordinate(latitude: 60.171, longitude: 24.941)
    static let tampere = try! Coordinate(latitude: 61.5, longitude: 23.75)
    static let turku = try! Coordinate(latitude: 60.45, longitude: 22.27)

    /// A 64-digit token; the mock APNs picks its faults by the first digits.
    static func token(_ prefix: String, _ n: Int = 1) -> DeviceToken {
        let tail = String(n, radix: 16)
        return DeviceToken(trusted: prefix + String(repeating: "0", count: 64 - prefix.count - tail.count) + tail)
    }

    static let bundleID = "com.example.frost"
    let alice = token("a1")
    let bob = token("b0")
    /// 410 Unregistered, with the mock's timestamp (after the device registered).
    let gone = token(MockAPNsTokenFault.unregistered.rawValue)
    /// 503 the first time each apns-id is seen, then accepted.
    let flaky = token(MockAPNsTokenFault.flaky.rawValue)
    /// A device in a box where the connection is cut under its push (see `resetAfterRequests`).
    let reset = token("c0")
    let mild = token("d0")

    /// Frost (−3 °C at 05:00) tonight in Helsinki and Tampere; Turku mild.
    static var scenario: MockScenario {
        MockScenario(
            frost: [
                FrostSpot(latitude: helsinki.latitude, longitude: helsinki.longitude, minimumC: -3, nights: [0]),
                FrostSpot(latitude: tampere.latitude, longitude: tampere.longitude, minimumC: -3, nights: [0]),
            ],
            now: now)
    }

    func config(directory: URL, mockURL: String) -> FrostboxSettings {
        var config = FrostboxSettings()
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        config.forecasts.baseURL = mockURL
        config.forecasts.batchSize = 100
        config.notifier.retryBackoff = .milliseconds(1)
        // One push at a time, so the connection cut hits one request and its retry gets through.
        config.notifier.concurrency = 1
        return config
    }

    func subscribe(_ components: FrostboxApplication.Components) async throws {
        let store = components.subscriptions
        func add(_ token: DeviceToken, _ c: Coordinate, _ name: String, unit: TemperatureUnit = .celsius) async throws {
            _ = try await store.subscribe(token, to: NewSubscription(coordinate: c, name: try PlaceName(name), unit: unit), at: Self.now - 86_400)
        }
        try await add(alice, Self.helsinki, "Home")
        try await add(alice, Self.garden, "Garden")
        try await add(bob, Self.tampere, "Cabin", unit: .fahrenheit)
        try await add(gone, Self.helsinki, "Old phone")
        try await add(flaky, Self.helsinki, "Office")
        try await add(reset, Self.tampere, "Sauna")
        try await add(mild, Self.turku, "Harbour")
        // Registered a day ago, before the mock's 410 timestamp (now).
    }

    func notifier(_ components: FrostboxApplication.Components, config: FrostboxSettings, push: any PushSender) -> Notifier {
        Notifier(
            store: GRDBNotifierStore(database: components.database.sqlite!), forecasts: components.forecasts.provider, push: push,
            configuration: config.notifier, logger: Logger(label: "e2e"), clock: { Self.now })
    }

    /// The mock APNs (each connection is cut, unanswered, when its fourth request arrives) and the real APNs client.
    final class APNs: Sendable {
        let mock: MockAPNsServer
        let router: APNsPushRouter

        init() async throws {
            let key = APNsSigningKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1234567", teamID: "TEAM123456")
            var configuration = MockAPNsSettings()
            configuration.signingKeys[key.keyID] = .init(teamID: key.teamID, publicKey: key.publicKey)
            configuration.clock = { NotifierEndToEndTests.now }
            configuration.resetAfterRequests = 3
            mock = try await MockAPNsServer.start(configuration, logger: Logger(label: "mock-apns"))
            let app = APNsAppSettings(
                bundleID: NotifierEndToEndTests.bundleID, credentials: .token(key), environment: .sandbox,
                customEndpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), trustedCertificatesPath: mock.certificatePath)
            router = try APNsPushRouter(
                apps: [app], clock: { NotifierEndToEndTests.now }, sleep: { _ in }, eventLoopGroup: NotifierEndToEndTests.apnsLoops,
                logger: Logger(label: "apns"))
        }

        func stop() async throws {
            await router.shutdown()
            try await mock.stop()
        }

        /// Accepted pushes by token.
        func delivered() async -> [DeviceToken: [MockAPNsDelivery]] {
            Dictionary(grouping: await mock.deliveries(), by: { DeviceToken(trusted: $0.token.lowercased()) })
        }
    }

    /// Runs `body` with a fresh mock APNs and client, stopping both however `body` ends.
    func withAPNs(_ body: (APNs) async throws -> Void) async throws {
        let apns = try await APNs()
        do {
            try await body(apns)
        } catch {
            try? await apns.stop()
            throw error
        }
        try await apns.stop()
    }

    func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    @Test("frost boxes alert each device once per event, naming all its places; dead tokens are pruned; faults are retried")
    func scenarioRun() async throws {
        let mock = MockOpenMeteo(scenario: Self.scenario)
        try await mock.withRunning { url in
            try await withDirectory { directory in
                let config = config(directory: directory, mockURL: url)
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                defer { Task { try? await components.forecasts.shutdown() } }
                try await subscribe(components)
                try await withAPNs { apns in
                    guard case .completed(let summary) = try await notifier(components, config: config, push: apns.router).run() else {
                        Issue.record("the run did not start")
                        return
                    }
                    try await expectScenario(apns, summary: summary, planned: summary.alertsPlanned)
                    #expect(summary.forecastRequests == 1)
                    #expect(summary.weightUsed == 3)
                    #expect(mock.counters.requests == 1)
                    #expect(try await components.subscriptions.device(gone) == nil)
                    #expect(try await components.subscriptions.subscriptions(of: gone).isEmpty)
                    #expect(try await components.subscriptions.device(alice) != nil)

                    // A second run: the same events are not planned again and nothing is resent.
                    let count = await apns.mock.deliveries().count
                    guard case .completed(let again) = try await notifier(components, config: config, push: apns.router).run() else { return }
                    #expect(again.alertsPlanned == 0)
                    #expect(again.alertsCarriedOver == 0)
                    #expect(await apns.mock.deliveries().count == count)
                }
            }
        }
    }

    /// Exactly who got what, once: Alice one alert naming Home and Garden, Bob one in °F, the
    /// flaky device and the one behind the reset connection theirs, the dead token nothing
    /// (and it is pruned), the mild box nothing.
    func expectScenario(_ apns: APNs, summary: NotifyRunSummary, planned: Int) async throws {
        let delivered = await apns.delivered()
        #expect(Set(delivered.keys) == [alice, bob, flaky, reset])
        for (token, pushes) in delivered { #expect(pushes.count == 1, "\(token) got \(pushes.count) pushes") }
        let aliceBody = try #require(delivered[alice]?.first.map { body(of: $0) })
        #expect(aliceBody.hasPrefix("Hard frost tonight at Home, Garden: low −3 °C around 05:00"))
        #expect(delivered[bob]?.first.map { body(of: $0).contains("at Cabin: low 27 °F") } == true)
        #expect(delivered[reset]?.first.map { body(of: $0).contains("at Sauna") } == true)
        #expect(planned == 5)
        #expect(summary.alertsDelivered == 4)
        #expect(summary.failed == [.invalidToken: 1])
        #expect(summary.tokensPruned == 1)
    }

    func body(of delivery: MockAPNsDelivery) -> String {
        let payload = try? JSONSerialization.jsonObject(with: Data(delivery.payload.utf8)) as? [String: Any]
        let alert = (payload?["aps"] as? [String: Any])?["alert"] as? [String: Any]
        return alert?["body"] as? String ?? ""
    }

    @Test("kill -9 between the outbox write and delivery: the restarted process sends every planned alert once, with its original apns-id")
    func crashBetweenOutboxAndDelivery() async throws {
        let mock = MockOpenMeteo(scenario: Self.scenario)
        try await mock.withRunning { url in
            try await withDirectory { directory in
                var config = config(directory: directory, mockURL: url)
                config.notifier.concurrency = 1
                let snapshot = directory.appendingPathComponent("after-kill")
                try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)

                // First process: plans and queues, then "dies" at its first send (the files are
                // copied as the kernel would leave them; nothing reaches APNs).
                let first = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                try await subscribe(first)
                let dying = FileSnapshotPushSender(databasePath: config.databasePath, into: snapshot)
                _ = try await notifier(first, config: config, push: dying).run()
                try await first.forecasts.shutdown()
                #expect(dying.copied)

                // Restart on the files as they were at the kill.
                var restartedConfig = config
                restartedConfig.databasePath = snapshot.appendingPathComponent("frostbox.sqlite").path
                let restarted = try FrostboxApplication.Components(config: restartedConfig, logger: Logger(label: "e2e"))
                let queued = try await GRDBNotifierStore(database: restarted.database.sqlite!).pendingOutbox(after: 0, through: nil, limit: 100)
                #expect(queued.count == 5)
                try await withAPNs { apns in
                    guard case .completed(let summary) = try await notifier(restarted, config: restartedConfig, push: apns.router).run() else {
                        Issue.record("the restarted run did not start")
                        return
                    }
                    #expect(summary.alertsCarriedOver == 5)
                    #expect(summary.alertsPlanned == 0)
                    try await expectScenario(apns, summary: summary, planned: queued.count)
                    // Every delivery carried the apns-id and collapse-id planned before the kill.
                    let planned = Dictionary(uniqueKeysWithValues: queued.map { ($0.token, $0.notification) })
                    for delivery in await apns.mock.deliveries() {
                        let original = planned[DeviceToken(trusted: delivery.token.lowercased())]
                        #expect(delivery.messageID.lowercased() == original?.messageID.lowercased())
                        #expect(delivery.collapseID == original?.collapseID)
                    }
                    // Nothing is sent again by a later run.
                    let count = await apns.mock.deliveries().count
                    _ = try await notifier(restarted, config: restartedConfig, push: apns.router).run()
                    #expect(await apns.mock.deliveries().count == count)
                }
                try await restarted.forecasts.shutdown()
            }
        }
    }
}

/// At its first send, copies the SQLite file and its WAL: what a kill -9 at that moment leaves
/// on disk. Sends nothing; every send fails temporarily, as the dying process never finishes one.
final class FileSnapshotPushSender: PushSender {
    let databasePath: String
    let directory: URL
    private let done = Mutex(false)

    init(databasePath: String, into directory: URL) {
        self.databasePath = databasePath
        self.directory = directory
    }

    var copied: Bool { done.withLock { $0 } }

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        PushOutcomes.concurrently(batch) { _ in self.snapshotOnce() }
    }

    private func snapshotOnce() -> PushOutcome {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first {
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: databasePath + suffix) {
                try? FileManager.default.copyItem(
                    atPath: databasePath + suffix, toPath: directory.appendingPathComponent("frostbox.sqlite" + suffix).path)
            }
        }
        return .temporaryFailure(reason: "process killed")
    }
}
