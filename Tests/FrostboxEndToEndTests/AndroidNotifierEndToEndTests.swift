import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxFCM
import FrostboxNotifier
import FrostboxSQLite
import Logging
import MockFCM
import MockOpenMeteo
import Testing

/// Android devices through the whole notifier: real SQLite, the real forecast provider against
/// the mock Open-Meteo, and the real FCM adapter (OAuth2 token, v1 messages) against mock-fcm.
/// The dead-token rule holds as for APNs' 410: an UNREGISTERED token's device is pruned.
@Suite("Notifier end to end with Android devices")
struct AndroidNotifierEndToEndTests {
    static let now = NotifierEndToEndTests.now
    static let helsinki = NotifierEndToEndTests.helsinki

    @Test("an Android alert is delivered through FCM, an UNREGISTERED token's device is pruned, the iPhone beside them alerted too")
    func androidThroughFCM() async throws {
        var fcmSettings = MockFCMSettings()
        fcmSettings.host = "127.0.0.1"
        let fcm = try MockFCMServer(fcmSettings, logger: Logger(label: "mock-fcm"))
        let openMeteo = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await openMeteo.withRunning { forecastURL in
            try await fcm.withRunning { port in
                let (_, keyPath) = try fcm.makeServiceAccount(port: port)
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-android-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                var config = NotifierEndToEndTests().config(directory: directory, mockURL: forecastURL)
                config.fcm.apps = [
                    FCMAppSettings(
                        packageName: "fi.example.frost", serviceAccountPath: keyPath, url: "https://127.0.0.1:\(port)",
                        trustedCertificatesPath: fcm.certificatePath)
                ]
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                let alive = DeviceToken(trusted: "fcm:android_alive-1")
                let dead = DeviceToken(trusted: "UNREG:android_gone-2")
                let iphone = DeviceToken(trusted: "a1000000000000000000000000000000")
                for token in [alive, dead, iphone] {
                    try await components.subscriptions.register(DeviceRegistration(token: token), at: Self.now - 86_400)
                    _ = try await components.subscriptions.subscribe(
                        token, to: NewSubscription(coordinate: Self.helsinki, name: try PlaceName("Home")), at: Self.now - 86_400)
                }
                #expect(try await components.subscriptions.device(alive)?.platform == .android)

                let notifier = Notifier(
                    store: GRDBNotifierStore(database: components.database.sqlite!), forecasts: components.forecasts.provider,
                    push: components.push, configuration: config.notifier, logger: Logger(label: "e2e"), clock: { Self.now })
                guard case .completed(let summary) = try await notifier.run() else {
                    Issue.record("the run did not complete")
                    return
                }
                try await components.forecasts.shutdown()
                await components.pushComponents.shutdown()

                #expect(summary.alertsDelivered == 2)
                #expect(summary.failed == [.invalidToken: 1])
                #expect(summary.tokensPruned == 1)
                #expect(try await components.subscriptions.device(dead) == nil)
                #expect(try await components.subscriptions.device(alive) != nil)
                let deliveries = fcm.deliveries()
                #expect(deliveries.map(\.token) == [alive.value])
                #expect(deliveries.first?.priority == "HIGH")
                #expect(deliveries.first?.body.contains("FROST_") == true)
            }
        }
    }
}
