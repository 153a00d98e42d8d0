import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import GRDB
import Logging
import MockAPNs
import MockFCM
import MockOpenMeteo
import Testing

/// The outbox's guarantees hold for both platforms: `frostbox notify --once` over iOS and
/// Android devices, APNs and FCM stand-ins, killed with SIGKILL during planning, as delivery
/// starts and mid-delivery, then run until one completes. Every planned alert ends delivered
/// on its own platform, each device gets each event under one message id, and a push sent
/// again after a kill is the same request (for FCM, but for `android.ttl`: the time left until
/// the alert's expiry, which FCM takes instead of an expiry time).
@Suite("notify --once with iOS and Android devices killed with SIGKILL", .serialized)
struct NotifyKillMixedPlatformTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
    static let boxes = 30
    static let devices = 600

    static func token(_ device: Int) -> DeviceToken {
        let tail = String(device, radix: 16)
        return device % 2 == 0
            ? DeviceToken(trusted: "ab" + String(repeating: "0", count: 62 - tail.count) + tail) : DeviceToken(trusted: "fcm:kill_\(tail)")
    }

    @Test("kill -9 at every phase with half the devices on Android: every alert delivered once per platform, resends the same request")
    func killedMixedRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-kill-mixed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = directory.appendingPathComponent("frostbox.sqlite").path

        let standIn = try await APNsStandIn.start(in: directory, keyID: "MIXK123456", logger: Self.quiet)
        let apns = standIn.server
        defer { Task { try? await apns.stop() } }
        var fcmSettings = MockFCMSettings()
        fcmSettings.host = "127.0.0.1"
        let fcm = try MockFCMServer(fcmSettings, logger: Self.quiet)

        let openMeteo = MockOpenMeteo(
            scenario: MockScenario(frostEverywhere: FrostSpot(latitude: 0, longitude: 0, minimumC: -4, nights: [0])), logger: Self.quiet)
        try await openMeteo.withRunning { forecastURL in
            try await fcm.withRunning { fcmPort in
                let (_, keyPath) = try fcm.makeServiceAccount(port: fcmPort)
                try await Self.subscribe(databasePath: databasePath)
                let environment = [
                    "FROSTBOX_DATABASE_PATH": databasePath,
                    "FROSTBOX_FORECAST_URL": forecastURL,
                    "FROSTBOX_FORECAST_BATCH": "10",
                    "FROSTBOX_NOTIFIER_BOXES_PER_CHUNK": "10",
                    "FROSTBOX_NOTIFIER_CONCURRENCY": "40",
                    "FROSTBOX_NOTIFIER_RETRY_BACKOFF": "10ms",
                    "FROSTBOX_APNS_APPS_FILE": standIn.appsPath,
                    // Alerts exactly once is what this checks; devices are taken as verified (DeviceVerificationEndToEndTests proves them).
                    "FROSTBOX_DEVICES_VERIFY": "false",
                    "FROSTBOX_FCM_APPS_KILL_PACKAGE_NAME": "fi.example.frost",
                    "FROSTBOX_FCM_APPS_KILL_SERVICE_ACCOUNT_PATH": keyPath,
                    "FROSTBOX_FCM_APPS_KILL_URL": "https://127.0.0.1:\(fcmPort)",
                    "FROSTBOX_FCM_APPS_KILL_TRUSTED_CERTIFICATES_PATH": fcm.certificatePath,
                ]
                func pushes() async -> Int { await apns.counters().requests + fcm.counters().sendRequests }
                var killed = 0
                for point in [0, 1, 150, 400] {
                    let forecastsBefore = openMeteo.counters.requests
                    let pushesBefore = await pushes()
                    let reached = try await NotifyKillTests.notifyKilled(directory: directory, environment: environment) {
                        point == 0 ? openMeteo.counters.requests - forecastsBefore >= 1 : await pushes() - pushesBefore >= point
                    }
                    if reached { killed += 1 }
                }
                #expect(killed >= 2, "only \(killed) kills hit a running process")

                #expect(try await NotifyKillTests.notifyToCompletion(directory: directory, environment: environment, databasePath: databasePath))

                // What was planned: one alert per device and event, delivered on its platform.
                let planned = try await Self.planned(databasePath)
                let events = try await NotifyKillTests.eventsPerBox(databasePath)
                #expect(events.boxes == Self.boxes)
                #expect(planned.count == Self.devices * events.perBox, "one alert per device and event")
                #expect(Set(planned.map(\.messageID)).count == planned.count, "each alert has its own message id")
                let apnsByID = Dictionary(grouping: await apns.deliveries(), by: { $0.messageID.uppercased() })
                let fcmByID = Dictionary(grouping: fcm.deliveries(), by: { ($0.alertID ?? "").uppercased() })
                let iosIDs = Set(planned.filter { $0.platform == .ios }.map { $0.messageID.uppercased() })
                let androidIDs = Set(planned.filter { $0.platform == .android }.map { $0.messageID.uppercased() })
                #expect(iosIDs.count == Self.devices / 2 * events.perBox)
                #expect(androidIDs.count == Self.devices / 2 * events.perBox)
                #expect(Set(apnsByID.keys) == iosIDs, "APNs got exactly the iOS alerts")
                #expect(Set(fcmByID.keys) == androidIDs, "FCM got exactly the Android alerts")
                for alert in planned where alert.platform == .android {
                    let sends = fcmByID[alert.messageID.uppercased()] ?? []
                    #expect(sends.contains { $0.name == alert.deliveredID }, "the stored message name is one FCM answered")
                    #expect(sends.allSatisfy { $0.token == alert.token && $0.collapseKey == sends[0].collapseKey })
                }
                var resent = 0
                for (_, sends) in apnsByID where sends.count > 1 {
                    resent += sends.count - 1
                    #expect(
                        sends.dropFirst().allSatisfy { $0.payload == sends[0].payload && $0.collapseID == sends[0].collapseID && $0.token == sends[0].token })
                }
                for (_, sends) in fcmByID where sends.count > 1 {
                    resent += sends.count - 1
                    let first = Self.withoutTTL(sends[0].body)
                    #expect(sends.dropFirst().allSatisfy { Self.withoutTTL($0.body) == first })
                }
                print("notify kill test (iOS + Android): \(killed) kills, \(planned.count) alerts, \(resent) sent again")
            }
        }
    }

    /// An FCM request body with its `ttl` member left out.
    static func withoutTTL(_ body: String) -> String {
        body.replacingOccurrences(of: #""ttl":"[0-9.]+s","#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #","ttl":"[0-9.]+s""#, with: "", options: .regularExpression)
    }

    /// Devices over `boxes` boxes, one place each; even ones iOS, odd ones Android.
    static func subscribe(databasePath: String) async throws {
        var config = FrostboxSettings()
        config.databasePath = databasePath
        let components = try FrostboxApplication.Components(config: config, logger: quiet)
        let now = Int64(Date().timeIntervalSince1970)
        for device in 0..<devices {
            let token = token(device)
            let box = device % boxes
            try await components.subscriptions.register(DeviceRegistration(token: token, platform: token.formPlatform), at: now - 86_400)
            let place = try Coordinate(latitude: 60.002 + Double(box / 10) * 0.05, longitude: 20.002 + Double(box % 10) * 0.05)
            _ = try await components.subscriptions.subscribe(token, to: NewSubscription(coordinate: place, name: try PlaceName("Place")), at: now - 86_400)
        }
        try await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
    }

    struct PlannedAlert {
        var token: String
        var platform: DevicePlatform
        var messageID: String
        var deliveredID: String
    }

    /// Every outbox row with its device's platform and the message id it was planned under
    /// (every row must be delivered).
    static func planned(_ path: String) async throws -> [PlannedAlert] {
        let database = try FrostboxDatabase(path: path, logger: quiet)
        return try await database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.token, d.platform, o.box, o.night, o.level, o.message_id, o.status, o.delivered_message_id
                    FROM outbox AS o JOIN device AS d ON d.id = o.device_id
                    """
            ).map { row in
                let token = DeviceToken(trusted: row["token"])
                #expect(row["status"] as String == "delivered")
                let event = FrostEvent(
                    box: GeoBox(key: row["box"])!, night: LocalDate(compactNumber: row["night"])!, level: FrostLevel(rawValue: row["level"])!)
                return PlannedAlert(
                    token: token.value, platform: DevicePlatform(rawValue: row["platform"]) ?? .ios,
                    messageID: (row["message_id"] as String?) ?? event.messageID(for: token), deliveredID: row["delivered_message_id"] ?? "")
            }
        }
    }
}
