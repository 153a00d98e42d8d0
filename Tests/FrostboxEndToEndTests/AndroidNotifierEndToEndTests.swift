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
        let openMeteo = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await Self.withAndroid(openMeteo) { fcm, config, components in
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
            #expect(summary.byPlatform[.android] == .init(delivered: 1, failed: 1))
            #expect(summary.byPlatform[.ios] == .init(delivered: 1, failed: 0))
            #expect(try await components.notifier.store.recentRuns(limit: 1).first?.byPlatform == summary.byPlatform)
            #expect(try await components.subscriptions.device(dead) == nil)
            #expect(try await components.subscriptions.device(alive) != nil)
            let deliveries = fcm.deliveries()
            #expect(deliveries.map(\.token) == [alive.value])
            #expect(deliveries.first?.priority == "HIGH")
            #expect(deliveries.first?.body.contains("FROST_") == true)
        }
    }

    @Test("an Android device gets the frost alert, then the escalation, then the all-clear of one night: one FCM message each, one collapse key")
    func escalationAndAllClear() async throws {
        @Sendable func spot(_ minimum: Double) -> FrostSpot {
            FrostSpot(latitude: Self.helsinki.latitude, longitude: Self.helsinki.longitude, minimumC: minimum, nights: [0])
        }
        // A freeze (−1 °C) tonight first.
        let openMeteo = MockOpenMeteo(scenario: MockScenario(frost: [spot(-1)], now: Self.now))
        try await Self.withAndroid(openMeteo) { fcm, config, components in
            let phone = DeviceToken(trusted: "fcm:android_escalating-1")
            try await components.subscriptions.register(DeviceRegistration(token: phone), at: Self.now - 86_400)
            _ = try await components.subscriptions.subscribe(
                phone, to: NewSubscription(coordinate: Self.helsinki, name: try PlaceName("Home"), settings: AlertSettings(allClear: true)),
                at: Self.now - 86_400)
            let notifier = Notifier(
                store: GRDBNotifierStore(database: components.database.sqlite!), forecasts: components.forecasts.provider,
                push: components.push, configuration: config.notifier, logger: Logger(label: "e2e"), clock: { Self.now })
            func run(_ minimum: Double?) async throws -> NotifyRunSummary? {
                // Each run reads the night's new forecast: the cache is emptied first (forecasts are
                // stamped by the real clock, far after the test's fixed notifier clock, so they would stay fresh).
                _ = try await components.forecasts.cache.purge(fetchedBefore: .max)
                openMeteo.setFrost(minimum.map { [spot($0)] } ?? [])
                guard case .completed(let summary) = try await notifier.run() else { return nil }
                return summary
            }
            let first = try #require(try await run(-1))
            let second = try #require(try await run(-6))
            let third = try #require(try await run(nil))
            let fourth = try #require(try await run(nil))
            try await components.forecasts.shutdown()
            await components.pushComponents.shutdown()

            #expect([first, second, third, fourth].map(\.alertsDelivered) == [1, 1, 1, 0])
            #expect([first, second, third].map { $0.byPlatform[.android].delivered } == [1, 1, 1])
            let deliveries = fcm.deliveries()
            #expect(deliveries.count == 3)
            #expect(deliveries.allSatisfy { $0.token == phone.value })
            // Alerts go out at high priority; the all-clear at normal (it may wait for the device's next wake).
            #expect(deliveries.map(\.priority) == ["HIGH", "HIGH", "NORMAL"])
            // Frost, then the colder level, then the all-clear: each a message of its own, one collapse key for the night.
            #expect(deliveries[0].body.contains("\"level\":\"freeze\""))
            #expect(deliveries[1].body.contains("\"level\":\"hard-freeze\""))
            #expect(deliveries[2].body.contains("FROST_ALL_CLEAR"))
            #expect(Set(deliveries.map(\.alertID)).count == 3)
            #expect(Set(deliveries.compactMap(\.collapseKey)).count == 1)
        }
    }

    /// Runs `body` with the mock Open-Meteo and mock-fcm running, a fresh SQLite directory, and
    /// the application's components configured for one Android app on mock-fcm.
    static func withAndroid(
        _ openMeteo: MockOpenMeteo,
        _ body: @Sendable (MockFCMServer, FrostboxSettings, FrostboxApplication.Components) async throws -> Void
    ) async throws {
        var fcmSettings = MockFCMSettings()
        fcmSettings.host = "127.0.0.1"
        let fcm = try MockFCMServer(fcmSettings, logger: Logger(label: "mock-fcm"))
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
                try await body(fcm, config, try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e")))
            }
        }
    }
}
