import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxNotifier
import FrostboxSQLite
import FrostboxWebPush
import Logging
import MockOpenMeteo
import MockWebPush
import Synchronization
import Testing

/// Browsers through the whole notifier (issue #46): real SQLite, the real forecast provider
/// against the mock Open-Meteo, and the real Web Push sender (VAPID, RFC 8291 encryption, the
/// shared HTTP/2 transport) against the loopback push service, which decrypts every push as a
/// browser would. What holds for phones holds for browsers: escalation and all-clear under one
/// topic, a gone subscription pruned, quiet hours, and a device proven real before its alerts.
@Suite("Notifier end to end with browsers")
struct BrowserNotifierEndToEndTests {
    static let now = NotifierEndToEndTests.now
    static let helsinki = NotifierEndToEndTests.helsinki

    static func spot(_ minimum: Double) -> FrostSpot {
        FrostSpot(latitude: helsinki.latitude, longitude: helsinki.longitude, minimumC: minimum, nights: [0])
    }

    /// The JSON object a browser's service worker receives.
    static func shown(_ delivery: MockWebPushServer.Delivery) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(delivery.plaintext)) as? [String: Any]) ?? [:]
    }

    @Test("a browser gets the frost alert, the escalation and the all-clear of one night under one topic; a gone browser is pruned")
    func escalationAndAllClear() async throws {
        let openMeteo = MockOpenMeteo(scenario: MockScenario(frost: [Self.spot(-1)], now: Self.now))
        try await Self.withBrowsers(openMeteo) { web, port, config, components in
            let browser = try await Self.register(web.makeSubscription(port: port), components, allClear: true)
            let gone = try await Self.register(web.makeSubscription(port: port, fault: .gone), components, allClear: true)
            let notifier = Notifier(
                store: GRDBNotifierStore(database: components.database.sqlite!), forecasts: components.forecasts.provider,
                push: components.push, configuration: config.notifier, logger: Logger(label: "e2e"), clock: { Self.now })
            func run(_ minimum: Double?) async throws -> NotifyRunSummary? {
                // Each run reads the night's new forecast (the cache is stamped by the real clock).
                _ = try await components.forecasts.cache.purge(fetchedBefore: .max)
                openMeteo.setFrost(minimum.map { [Self.spot($0)] } ?? [])
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
            #expect(first.tokensPruned == 1 && first.byPlatform[.web] == .init(delivered: 1, failed: 1))
            #expect(try await components.subscriptions.device(gone) == nil, "the 410's browser is pruned")
            #expect(try await components.subscriptions.device(browser) != nil)
            let deliveries = web.deliveries
            let shown = deliveries.map(Self.shown)
            #expect(deliveries.count == 3)
            #expect(shown.map { ($0["data"] as? [String: String])?["level"] } == ["freeze", "hard-freeze", "none"], "frost, then colder, then none")
            #expect(shown.map { $0["kind"] as? String } == ["alert", "alert", "alert"])
            #expect((shown[2]["body"] as? String)?.isEmpty == false, "the all-clear says something: a browser shows every push")
            // Alerts urgent, the all-clear normal; one topic for the night, so a newer push replaces an unread older one.
            #expect(deliveries.map(\.urgency) == ["high", "high", "normal"])
            #expect(Set(deliveries.compactMap(\.topic)).count == 1 && deliveries.allSatisfy { $0.topic != nil })
            #expect(Set(shown.compactMap { $0["alert_id"] as? String }).count == 3)
        }
    }

    @Test("a browser in its quiet hours has its alert held, then delivered once they end")
    func quietHours() async throws {
        let openMeteo = MockOpenMeteo(scenario: MockScenario(frost: [Self.spot(-1)], now: Self.now))
        try await Self.withBrowsers(openMeteo) { web, port, config, components in
            // Helsinki is UTC+3 in July: the test's clock is 15:00 there.
            let quiet = try #require(QuietHours(startMinute: 14 * 60, endMinute: 16 * 60))
            _ = try await Self.register(web.makeSubscription(port: port), components, quietHours: quiet)
            let clock = Mutex(Self.now)
            let notifier = Notifier(
                store: GRDBNotifierStore(database: components.database.sqlite!), forecasts: components.forecasts.provider,
                push: components.push, configuration: config.notifier, logger: Logger(label: "e2e"), clock: { clock.withLock { $0 } })
            guard case .completed(let inside) = try await notifier.run() else { throw CancellationError() }
            #expect(inside.alertsPlanned == 1 && inside.alertsHeld == 1 && inside.alertsDelivered == 0)
            #expect(web.deliveries.isEmpty)

            clock.withLock { $0 = Self.now + 2 * 3_600 }
            guard case .completed(let after) = try await notifier.run() else { throw CancellationError() }
            try await components.forecasts.shutdown()
            await components.pushComponents.shutdown()
            #expect(after.alertsReleased == 1 && after.alertsDelivered == 1)
            #expect(web.deliveries.map { Self.shown($0)["kind"] as? String } == ["alert"])
        }
    }

    @Test("a new browser is proven real by a visible confirmation push, accepted with a 201, before its first alert")
    func verifiedByAVisiblePush() async throws {
        let openMeteo = MockOpenMeteo(scenario: MockScenario(frost: [Self.spot(-1)], now: Self.now))
        try await Self.withBrowsers(openMeteo) { web, port, config, components in
            let browser = try await Self.register(web.makeSubscription(port: port), components)
            #expect(try await components.subscriptions.device(browser)?.verifiedAt == nil)
            let store = GRDBNotifierStore(database: components.database.sqlite!, verifiedDevicesOnly: true)
            let notifier = Notifier(
                store: store, forecasts: components.forecasts.provider, push: components.push, configuration: config.notifier,
                logger: Logger(label: "e2e"), clock: { Self.now },
                verification: DeviceVerificationStep(store: store, removingReasons: NotifierComponents.removingReasons))
            guard case .completed(let summary) = try await notifier.run() else { throw CancellationError() }
            try await components.forecasts.shutdown()
            await components.pushComponents.shutdown()

            #expect(summary.alertsDelivered == 1)
            #expect(try await components.subscriptions.device(browser)?.verifiedAt != nil)
            let shown = web.deliveries.map(Self.shown)
            #expect(shown.map { $0["kind"] as? String } == ["verification", "alert"], "the confirmation first, then the alert")
            #expect(shown.first?["title"] as? String == WebPushPayload.verificationTitle)
            #expect((shown.first?["body"] as? String)?.hasPrefix("Frost alerts are on") == true)
        }
    }

    /// Registers a browser with `made`'s subscription and subscribes it to Helsinki.
    static func register(
        _ made: (endpoint: String, p256dh: String, auth: String), _ components: FrostboxApplication.Components, allClear: Bool = false,
        quietHours: QuietHours? = nil
    ) async throws -> DeviceToken {
        var registration = DeviceRegistration(token: DeviceToken.webID(random: (0..<16).map { _ in UInt8.random(in: .min ... .max) }), platform: .web)
        registration.webPush = try WebPushSubscription(endpoint: made.endpoint, p256dh: made.p256dh, auth: made.auth)
        registration.quietHours = quietHours.map(QuietHoursUpdate.set)
        let id = try await components.subscriptions.registerWebPush(registration, newID: registration.token, at: Self.now - 86_400).token
        _ = try await components.subscriptions.subscribe(
            id, to: NewSubscription(coordinate: Self.helsinki, name: try PlaceName("Garden"), settings: AlertSettings(allClear: allClear)),
            at: Self.now - 86_400)
        return id
    }

    /// Runs `body` with the mock Open-Meteo and the loopback push service running, a fresh
    /// SQLite directory, and the application's components configured for one Web Push app whose
    /// push service is the loopback one.
    static func withBrowsers(
        _ openMeteo: MockOpenMeteo,
        _ body: @Sendable (MockWebPushServer, Int, FrostboxSettings, FrostboxApplication.Components) async throws -> Void
    ) async throws {
        let web = try MockWebPushServer(logger: Logger(label: "mock-web-push"))
        try await openMeteo.withRunning { forecastURL in
            try await web.withRunning { port in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-browsers-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                var config = NotifierEndToEndTests().config(directory: directory, mockURL: forecastURL)
                config.webPush.apps = [WebPushApp(name: "garden", key: .generate(), subject: try VAPIDSubject("mailto:frost@example.org"))]
                config.webPush.pushServices = []
                config.webPush.privatePushServices = ["https://127.0.0.1:\(port)"]
                config.webPush.connection.trustedCertificatesPath = web.certificatePath
                try await body(web, port, config, try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e")))
            }
        }
    }
}
