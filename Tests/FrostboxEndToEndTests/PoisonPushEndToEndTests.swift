import Crypto
import Foundation
import FrostboxAPNs
import FrostboxApp
import FrostboxCore
import FrostboxFCM
import FrostboxNotifier
import FrostboxSQLite
import GRDB
import Logging
import MockAPNs
import MockFCM
import MockOpenMeteo
import Testing

/// A push whose request makes the gateway drop the connection (mock-apns' `0dead…` tokens,
/// mock-fcm's `DROP…`) cannot keep others from being delivered, on either platform: one run
/// delivers the rest and gives it up.
@Suite("Poison push end to end")
struct PoisonPushEndToEndTests {
    @Test("one poison token among 1,000 devices: one run delivers 999 alerts and parks the poison one as permanent, with its reason")
    func poisonAmongAThousand() async throws {
        let poison = NotifierEndToEndTests.token("0dead", 500)
        let devices = (0..<1_000).map { $0 == 500 ? poison : NotifierEndToEndTests.token("a1", $0) }
        try await Self.withSubscribed(devices) { run in
            let key = APNsSigningKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1234567", teamID: "TEAM123456")
            var settings = MockAPNsSettings()
            settings.signingKeys[key.keyID] = .init(teamID: key.teamID, publicKey: key.publicKey)
            settings.clock = { NotifierEndToEndTests.now }
            let apns = try await MockAPNsServer.start(settings, logger: Logger(label: "mock-apns"))
            let app = APNsAppSettings(
                bundleID: NotifierEndToEndTests.bundleID, credentials: .token(key), environment: .sandbox,
                customEndpoint: APNsEndpoint(host: "127.0.0.1", port: apns.port), trustedCertificatesPath: apns.certificatePath)
            var connection = APNsConnectionSettings()
            connection.requestTimeout = .seconds(90)
            let router = try APNsPushRouter(
                apps: [app], settings: connection, clock: { NotifierEndToEndTests.now }, sleep: { _ in },
                eventLoopGroup: NotifierEndToEndTests.apnsLoops, logger: Logger(label: "apns"))
            let result = await run(router)
            // Asked before the double stops: its event loops answer nothing after that.
            let delivered = Set(await apns.deliveries().map(\.token))
            await router.shutdown()
            try await apns.stop()
            try Self.expectIsolated(poison, result: result, delivered: delivered)
        }
    }

    @Test("one poison token among 1,000 Android devices: one run through FCM delivers 999 alerts and parks the poison one as permanent")
    func poisonAmongAThousandOnFCM() async throws {
        // Tokens not in APNs' hex form are Android devices' (FCM registration tokens).
        let poison = DeviceToken(trusted: "DROP_500_poison")
        let devices = (0..<1_000).map { $0 == 500 ? poison : DeviceToken(trusted: "fcm_device_\($0)") }
        try await Self.withSubscribed(devices) { run in
            var settings = MockFCMSettings()
            settings.clock = { NotifierEndToEndTests.now }
            var quiet = Logger(label: "mock-fcm")
            quiet.logLevel = .warning
            let fcm = try MockFCMServer(settings, logger: quiet)
            try await fcm.withRunning { port in
                let (_, keyPath) = try fcm.makeServiceAccount(port: port)
                let app = try FCMAppSettings(
                    packageName: "fi.example.frost", serviceAccountPath: keyPath, url: "https://127.0.0.1:\(port)",
                    trustedCertificatesPath: fcm.certificatePath
                ).load()
                var connection = FCMConnectionSettings()
                connection.requestTimeout = .seconds(90)
                let router = try FCMPushRouter(
                    apps: [app], settings: connection, clock: { NotifierEndToEndTests.now }, sleep: { _ in },
                    eventLoopGroup: NotifierEndToEndTests.apnsLoops, logger: Logger(label: "fcm"))
                let result = await run(router)
                let delivered = Set(fcm.deliveries().map(\.token))
                await router.shutdown()
                try Self.expectIsolated(poison, result: result, delivered: delivered)
                #expect(fcm.counters().rejected["ConnectionDropped"] == 3, "sent with others once, then alone twice")
            }
        }
    }

    /// What one run made of the poison push and the others.
    struct RunResult: Sendable {
        let run: Result<Notifier.RunResult, any Error>
        /// The outbox rows not delivered: token, status, failure class and reason.
        let undelivered: [[String?]]
    }

    /// `devices` subscribed to one place in a fresh service against the forecast double; `body`
    /// gets a function that runs the notifier once through a sender and reads the outbox after.
    static func withSubscribed(
        _ devices: [DeviceToken], _ body: @Sendable (_ run: @escaping @Sendable (any PushSender) async -> RunResult) async throws -> Void
    ) async throws {
        let e2e = NotifierEndToEndTests()
        let mock = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await mock.withRunning { url in
            try await e2e.withDirectory { directory in
                var settings = e2e.config(directory: directory, mockURL: url)
                settings.notifier.concurrency = 400
                let config = settings
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                defer { Task { try? await components.forecasts.shutdown() } }
                for device in devices {
                    _ = try await components.subscriptions.subscribe(
                        device, to: NewSubscription(coordinate: NotifierEndToEndTests.helsinki, name: try PlaceName("Home"), unit: .celsius),
                        at: NotifierEndToEndTests.now - 86_400)
                }
                try await body { push in
                    let run: Result<Notifier.RunResult, any Error>
                    do {
                        run = .success(try await e2e.notifier(components, config: config, push: push).run())
                    } catch {
                        run = .failure(error)
                    }
                    let undelivered =
                        (try? await components.database.sqlite!.pool.read { db in
                            try Row.fetchAll(
                                db,
                                sql: """
                                    SELECT token, status, failure_class, failure_reason FROM outbox JOIN device ON device.id = outbox.device_id
                                    WHERE status != 'delivered'
                                    """
                            ).map { [$0["token"], $0["status"], $0["failure_class"], $0["failure_reason"]] as [String?] }
                        }) ?? [["outbox unreadable"]]
                    return RunResult(run: run, undelivered: undelivered)
                }
            }
        }
    }

    /// The run delivered 999 alerts, never the poison one, and parked it as permanent with its
    /// reason; nothing else is left pending or failed.
    static func expectIsolated(_ poison: DeviceToken, result: RunResult, delivered: Set<String>) throws {
        guard case .completed(let summary) = try result.run.get() else {
            Issue.record("the run did not start")
            return
        }
        #expect(summary.alertsPlanned == 1_000)
        #expect(summary.alertsDelivered == 999)
        #expect(summary.failed == [.permanent: 1])
        #expect(delivered.count == 999)
        #expect(!delivered.contains(poison.value))
        #expect(result.undelivered.count == 1, "nothing else left pending or failed: \(result.undelivered)")
        #expect(result.undelivered.first == [poison.value, "failed", "permanent", "0 ConnectionLostWhenSentAlone"])
    }
}
