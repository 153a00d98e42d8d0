import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import GRDB
import Logging
import MockAPNs
import MockFCM
import MockOpenMeteo
import MockWebPush
import Testing

/// The outbox's guarantees hold for every platform: `frostbox notify --once` over iOS, Android
/// and browser devices, APNs, FCM and Web Push stand-ins, killed with SIGKILL during planning,
/// as delivery starts and mid-delivery, then run until one completes. Every planned alert ends
/// delivered on its own platform, each device gets each event under one message id, resends
/// stay within what can be in flight at a kill, and a push sent again after a kill is the same
/// request (for FCM, but for `android.ttl`: the time left until the alert's expiry, which FCM
/// takes instead of an expiry time; for a browser, the same plaintext before encryption, which
/// is fresh per message by design).
@Suite("notify --once with iOS, Android and browser devices killed with SIGKILL", .serialized)
struct NotifyKillMixedPlatformTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
    static let boxes = 30
    static let devices = 600
    static let concurrency = 40

    /// Device `n`'s id: iOS for n % 3 == 0, Android for 1, a browser for 2.
    static func token(_ device: Int) -> DeviceToken {
        let tail = String(device, radix: 16)
        switch device % 3 {
        case 0: return DeviceToken(trusted: "ab" + String(repeating: "0", count: 62 - tail.count) + tail)
        case 1: return DeviceToken(trusted: "fcm:kill_\(tail)")
        default: return DeviceToken.webID(random: (0..<16).map { UInt8(truncatingIfNeeded: device >> (8 * min($0, 3))) &+ UInt8($0) })
        }
    }

    @Test("kill -9 at every phase with devices on iOS, Android and the web: every alert delivered once per platform, resends bounded and the same request")
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
        let web = try MockWebPushServer(logger: Self.quiet)
        let vapidKeyPath = directory.appendingPathComponent("vapid.pem").path
        _ = try WebPushCommands.makeKeys(out: vapidKeyPath)

        let openMeteo = MockOpenMeteo(
            scenario: MockScenario(frostEverywhere: FrostSpot(latitude: 0, longitude: 0, minimumC: -4, nights: [0])), logger: Self.quiet)
        try await openMeteo.withRunning { forecastURL in
            try await fcm.withRunning { fcmPort in
                try await web.withRunning { webPort in
                    let (_, keyPath) = try fcm.makeServiceAccount(port: fcmPort)
                    let subscriptions = try await Self.subscribe(databasePath: databasePath, web: web, webPort: webPort)
                    let environment = [
                        "FROSTBOX_DATABASE_PATH": databasePath,
                        "FROSTBOX_FORECAST_URL": forecastURL,
                        "FROSTBOX_FORECAST_BATCH": "10",
                        "FROSTBOX_NOTIFIER_BOXES_PER_CHUNK": "10",
                        "FROSTBOX_NOTIFIER_CONCURRENCY": "\(Self.concurrency)",
                        "FROSTBOX_NOTIFIER_RETRY_BACKOFF": "10ms",
                        "FROSTBOX_APNS_APPS_FILE": standIn.appsPath,
                        // Alerts exactly once is what this checks; devices are taken as verified (DeviceVerificationEndToEndTests proves them).
                        "FROSTBOX_DEVICES_VERIFY": "false",
                        "FROSTBOX_FCM_APPS_KILL_PACKAGE_NAME": "fi.example.frost",
                        "FROSTBOX_FCM_APPS_KILL_SERVICE_ACCOUNT_PATH": keyPath,
                        "FROSTBOX_FCM_APPS_KILL_URL": "https://127.0.0.1:\(fcmPort)",
                        "FROSTBOX_FCM_APPS_KILL_TRUSTED_CERTIFICATES_PATH": fcm.certificatePath,
                        "FROSTBOX_WEBPUSH_APPS_KILL_VAPID_KEY_PATH": vapidKeyPath,
                        "FROSTBOX_WEBPUSH_APPS_KILL_SUBJECT": "mailto:frost@example.org",
                        "FROSTBOX_WEBPUSH_PRIVATE_PUSH_SERVICES": "https://127.0.0.1:\(webPort)",
                        "FROSTBOX_WEBPUSH_TRUSTED_CERTIFICATES_PATH": web.certificatePath,
                    ]
                    func pushes() async -> Int { await apns.counters().requests + fcm.counters().sendRequests + web.deliveries.count }
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
                    let webByID = Dictionary(grouping: web.deliveries, by: { Self.alertID(in: $0.plaintext).uppercased() })
                    func ids(_ platform: DevicePlatform) -> Set<String> { Set(planned.filter { $0.platform == platform }.map { $0.messageID.uppercased() }) }
                    for platform in [DevicePlatform.ios, .android, .web] {
                        #expect(ids(platform).count == Self.devices / 3 * events.perBox, "\(platform): a third of the alerts")
                    }
                    #expect(Set(apnsByID.keys) == ids(.ios), "APNs got exactly the iOS alerts")
                    #expect(Set(fcmByID.keys) == ids(.android), "FCM got exactly the Android alerts")
                    #expect(Set(webByID.keys) == ids(.web), "the push service got exactly the browsers' alerts")
                    for alert in planned where alert.platform == .android {
                        let sends = fcmByID[alert.messageID.uppercased()] ?? []
                        #expect(sends.contains { $0.name == alert.deliveredID }, "the stored message name is one FCM answered")
                        #expect(sends.allSatisfy { $0.token == alert.token && $0.collapseKey == sends[0].collapseKey })
                    }
                    for alert in planned where alert.platform == .web {
                        let sends = webByID[alert.messageID.uppercased()] ?? []
                        #expect(sends.allSatisfy { $0.subscription == subscriptions[alert.token] }, "a browser's alert went to its own subscription")
                    }
                    var resent = 0
                    for (_, sends) in apnsByID where sends.count > 1 {
                        resent += sends.count - 1
                        #expect(
                            sends.dropFirst().allSatisfy {
                                $0.payload == sends[0].payload && $0.collapseID == sends[0].collapseID && $0.token == sends[0].token
                            })
                    }
                    for (_, sends) in fcmByID where sends.count > 1 {
                        resent += sends.count - 1
                        let first = Self.withoutTTL(sends[0].body)
                        #expect(sends.dropFirst().allSatisfy { Self.withoutTTL($0.body) == first })
                    }
                    for (_, sends) in webByID where sends.count > 1 {
                        resent += sends.count - 1
                        #expect(
                            sends.dropFirst().allSatisfy {
                                $0.plaintext == sends[0].plaintext && $0.topic == sends[0].topic && $0.urgency == sends[0].urgency
                            }, "a browser's push sent again is the same plaintext, topic and urgency")
                    }
                    // Only pushes in flight, or answered but not yet durable, at a kill go out again.
                    #expect(resent <= killed * (Self.concurrency + 600), "resent \(resent) after \(killed) kills")
                    print("notify kill test (iOS + Android + web): \(killed) kills, \(planned.count) alerts, \(resent) sent again")
                }
            }
        }
    }

    /// The `alert_id` of a browser push's plaintext (the message id it was planned under).
    static func alertID(in plaintext: [UInt8]) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any]
        return object?["alert_id"] as? String ?? ""
    }

    /// An FCM request body with its `ttl` member left out.
    static func withoutTTL(_ body: String) -> String {
        body.replacingOccurrences(of: #""ttl":"[0-9.]+s","#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #","ttl":"[0-9.]+s""#, with: "", options: .regularExpression)
    }

    /// Devices over `boxes` boxes, one place each, a third on each platform (see `token`). The
    /// browsers subscribe at `web`; answers each browser's id with its subscription's id there.
    static func subscribe(databasePath: String, web: MockWebPushServer, webPort: Int) async throws -> [String: String] {
        var config = FrostboxSettings()
        config.databasePath = databasePath
        let components = try FrostboxApplication.Components(config: config, logger: quiet)
        let now = Int64(Date().timeIntervalSince1970)
        var subscriptions: [String: String] = [:]
        for device in 0..<devices {
            var token = token(device)
            let box = device % boxes
            if token.formPlatform == .web {
                let made = web.makeSubscription(port: webPort)
                var registration = DeviceRegistration(token: token, platform: .web)
                registration.webPush = try WebPushSubscription(endpoint: made.endpoint, p256dh: made.p256dh, auth: made.auth)
                token = try await components.subscriptions.registerWebPush(registration, newID: token, at: now - 86_400).token
                subscriptions[token.value] = String(made.endpoint.split(separator: "/").last ?? "")
            } else {
                try await components.subscriptions.register(DeviceRegistration(token: token, platform: token.formPlatform), at: now - 86_400)
            }
            let place = try Coordinate(latitude: 60.002 + Double(box / 10) * 0.05, longitude: 20.002 + Double(box % 10) * 0.05)
            _ = try await components.subscriptions.subscribe(token, to: NewSubscription(coordinate: place, name: try PlaceName("Place")), at: now - 86_400)
        }
        try await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
        return subscriptions
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
