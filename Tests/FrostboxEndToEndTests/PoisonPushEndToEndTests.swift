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
        let e2e = NotifierEndToEndTests()
        let mock = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await mock.withRunning { url in
            try await e2e.withDirectory { directory in
                var config = e2e.config(directory: directory, mockURL: url)
                config.notifier.concurrency = 400
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                defer { Task { try? await components.forecasts.shutdown() } }
                let poison = NotifierEndToEndTests.token("0dead", 500)
                let devices = (0..<1_000).map { $0 == 500 ? poison : NotifierEndToEndTests.token("a1", $0) }
                for device in devices {
                    _ = try await components.subscriptions.subscribe(
                        device, to: NewSubscription(coordinate: NotifierEndToEndTests.helsinki, name: try PlaceName("Home"), unit: .celsius),
                        at: NotifierEndToEndTests.now - 86_400)
                }

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

                let run: Result<Notifier.RunResult, any Error>
                do {
                    run = .success(try await e2e.notifier(components, config: config, push: router).run())
                } catch {
                    run = .failure(error)
                }
                // Asked before the double stops: its event loops answer nothing after that.
                let deliveredTokens = Set(await apns.deliveries().map(\.token))
                await router.shutdown()
                try await apns.stop()
                guard case .completed(let summary) = try run.get() else {
                    Issue.record("the run did not start")
                    return
                }
                #expect(summary.alertsPlanned == 1_000)
                #expect(summary.alertsDelivered == 999)
                #expect(summary.failed == [.permanent: 1])
                #expect(deliveredTokens.count == 999)
                #expect(!deliveredTokens.contains(poison.value))
                try await Self.expectOnlyParked(poison, in: components)
            }
        }
    }

    @Test("one poison token among 1,000 Android devices: one run through FCM delivers 999 alerts and parks the poison one as permanent")
    func poisonAmongAThousandOnFCM() async throws {
        let e2e = NotifierEndToEndTests()
        let mock = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await mock.withRunning { url in
            try await e2e.withDirectory { directory in
                var settings = e2e.config(directory: directory, mockURL: url)
                settings.notifier.concurrency = 400
                let config = settings
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                defer { Task { try? await components.forecasts.shutdown() } }
                // Tokens not in APNs' hex form are Android devices' (FCM registration tokens).
                let poison = DeviceToken(trusted: "DROP_500_poison")
                let devices = (0..<1_000).map { $0 == 500 ? poison : DeviceToken(trusted: "fcm_device_\($0)") }
                for device in devices {
                    _ = try await components.subscriptions.subscribe(
                        device, to: NewSubscription(coordinate: NotifierEndToEndTests.helsinki, name: try PlaceName("Home"), unit: .celsius),
                        at: NotifierEndToEndTests.now - 86_400)
                }

                var fcmSettings = MockFCMSettings()
                fcmSettings.clock = { NotifierEndToEndTests.now }
                var quiet = Logger(label: "mock-fcm")
                quiet.logLevel = .warning
                let fcm = try MockFCMServer(fcmSettings, logger: quiet)
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

                    let run: Result<Notifier.RunResult, any Error>
                    do {
                        run = .success(try await e2e.notifier(components, config: config, push: router).run())
                    } catch {
                        run = .failure(error)
                    }
                    let deliveredTokens = Set(fcm.deliveries().map(\.token))
                    await router.shutdown()
                    guard case .completed(let summary) = try run.get() else {
                        Issue.record("the run did not start")
                        return
                    }
                    #expect(summary.alertsPlanned == 1_000)
                    #expect(summary.alertsDelivered == 999)
                    #expect(summary.failed == [.permanent: 1])
                    #expect(deliveredTokens.count == 999)
                    #expect(!deliveredTokens.contains(poison.value))
                    #expect(fcm.counters().rejected["ConnectionDropped"] == 3, "sent with others once, then alone twice")
                    try await Self.expectOnlyParked(poison, in: components)
                }
            }
        }
    }

    /// The outbox after the run: the poison push parked as permanent with its reason, nothing
    /// else left pending or failed.
    static func expectOnlyParked(_ poison: DeviceToken, in components: FrostboxApplication.Components) async throws {
        let rows = try await components.database.sqlite!.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT token, status, failure_class, failure_reason FROM outbox JOIN device ON device.id = outbox.device_id
                    WHERE status != 'delivered'
                    """
            ).map {
                [$0["token"], $0["status"], $0["failure_class"], $0["failure_reason"]] as [String?]
            }
        }
        #expect(rows.count == 1, "nothing else left pending or failed: \(rows)")
        #expect(rows.first == [poison.value, "failed", "permanent", "0 ConnectionLostWhenSentAlone"])
    }
}
