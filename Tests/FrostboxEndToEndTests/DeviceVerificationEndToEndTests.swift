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
import Testing

/// Devices proven real end to end (issue #33): real SQLite, the real forecast provider against
/// the mock Open-Meteo, the real APNs client against the mock APNs holding a device registry
/// that knows only the real devices' tokens, as APNs does.
@Suite("Device verification end to end")
struct DeviceVerificationEndToEndTests {
    static let now = NotifierEndToEndTests.now
    static let realPlaces = [
        NotifierEndToEndTests.helsinki, NotifierEndToEndTests.tampere, NotifierEndToEndTests.turku,
        try! Coordinate(latitude: 65.01, longitude: 25.47),
    ]
    let real = (0..<4).map { NotifierEndToEndTests.token("a1", $0) }
    let invented = (0..<30).map { NotifierEndToEndTests.token("e1", $0) }
    /// Known to the gateway, but every push to it takes the connection down (the mock's `0dead…`).
    let poison = NotifierEndToEndTests.token(MockAPNsTokenFault.connectionReset.rawValue)

    @Test("invented tokens are refused and removed, never fetched, and so is a poison token; real boxes get a short budget first; the run is degraded")
    func inventedAmongReal() async throws {
        let mock = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await mock.withRunning { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-verify-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var config = FrostboxSettings()
            config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
            config.forecasts.baseURL = url
            config.forecasts.batchSize = 1
            // Two boxes' worth: half the real boxes.
            config.forecasts.budgets = QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 2)
            config.notifier.retryBackoff = .milliseconds(1)
            let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
            defer { Task { try? await components.forecasts.shutdown() } }
            for (token, place) in zip(real, Self.realPlaces) {
                _ = try await components.subscriptions.subscribe(
                    token, to: NewSubscription(coordinate: place, name: try PlaceName("Home")), at: Self.now - 7_200)
            }
            _ = try await components.subscriptions.subscribe(
                poison, to: NewSubscription(coordinate: Self.realPlaces[0], name: try PlaceName("Cursed")), at: Self.now - 7_200)
            for (i, token) in invented.enumerated() {
                let place = try Coordinate(latitude: 55 + Double(i) * 0.1, longitude: 12)
                _ = try await components.subscriptions.subscribe(
                    token, to: NewSubscription(coordinate: place, name: try PlaceName("Nowhere \(i)")), at: Self.now - 600)
            }

            let key = APNsSigningKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1234567", teamID: "TEAM123456")
            var settings = MockAPNsSettings()
            settings.signingKeys[key.keyID] = .init(teamID: key.teamID, publicKey: key.publicKey)
            settings.clock = { Self.now }
            settings.knownTokens = Set((real + [poison]).map(\.value))
            let apns = try await MockAPNsServer.start(settings, logger: Logger(label: "mock-apns"))
            let router = try APNsPushRouter(
                apps: [
                    APNsAppSettings(
                        bundleID: NotifierEndToEndTests.bundleID, credentials: .token(key), environment: .sandbox,
                        customEndpoint: APNsEndpoint(host: "127.0.0.1", port: apns.port), trustedCertificatesPath: apns.certificatePath)
                ], clock: { Self.now }, sleep: { _ in }, logger: Logger(label: "apns"))
            let store = GRDBNotifierStore(database: components.database.sqlite!, verifiedDevicesOnly: true)
            let notifier = Notifier(
                store: store, forecasts: components.forecasts.provider, push: router, configuration: config.notifier,
                logger: Logger(label: "e2e"), clock: { Self.now },
                verification: DeviceVerificationStep(store: store, removingReasons: NotifierComponents.removingReasons))
            let result = try await notifier.run()
            await router.shutdown()
            let deliveries = await apns.deliveries()
            try await apns.stop()

            guard case .completed(let summary) = result else {
                Issue.record("the run did not start")
                return
            }
            #expect(summary.devicesVerified == 4)
            #expect(summary.devicesRejected == 31)
            for token in invented + [poison] { #expect(try await components.subscriptions.device(token) == nil) }
            for token in real { #expect(try await components.subscriptions.device(token)?.verifiedAt == Self.now) }
            // Only real boxes competed for the budget: two fetched, two left out, none invented.
            #expect(summary.boxes == 4)
            #expect(summary.forecastsFetched == 2)
            #expect(summary.boxesLeftOut == 2)
            #expect(summary.boxesUnverified == 0)
            #expect(summary.status == .degraded)
            #expect(mock.counters.requests == 2)
            // Each real device got one background push; the invented ones got nothing delivered.
            let background = deliveries.filter { $0.pushType == "background" }
            #expect(background.count == 4)
            #expect(Set(background.map { $0.token.lowercased() }) == Set(real.map(\.value)))
            #expect(background.allSatisfy { $0.priority == 5 && $0.collapseID == nil })
            #expect(deliveries.allSatisfy { !$0.token.lowercased().hasPrefix("e1") })
        }
    }
}
