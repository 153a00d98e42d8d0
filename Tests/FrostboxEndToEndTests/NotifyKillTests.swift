import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import GRDB
import Logging
import MockAPNs
import MockOpenMeteo
import Testing

/// The outbox's guarantees with the real executable: `frostbox notify --once` over thousands of
/// devices, killed with SIGKILL at several moments of its runs (while forecasts and planning
/// go on, as delivery starts, mid-delivery), then run again until one completes. Every planned
/// alert must end delivered, each under one apns-id; a push sent again after a kill is the
/// same request; nothing is sent that was not planned.
@Suite("notify --once killed with SIGKILL at every phase", .serialized)
struct NotifyKillTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
    static let boxes = 100
    static let devices = 2_000
    static let concurrency = 40

    /// When to kill a run.
    enum KillPoint: CustomStringConvertible {
        /// Once Open-Meteo has answered this many requests (forecasts, planning and the
        /// outbox write of the first chunks are under way).
        case forecastRequests(Int)
        /// Once the APNs stand-in has received this many requests.
        case pushes(Int)

        var description: String {
            switch self {
            case .forecastRequests(let n): "after \(n) forecast request(s)"
            case .pushes(let n): "after \(n) push(es)"
            }
        }
    }

    @Test("kill -9 during planning, as delivery starts and mid-delivery: every alert delivered, each under one apns-id, resends byte-identical")
    func killedRunsDeliverEverythingOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = directory.appendingPathComponent("frostbox.sqlite").path

        let standIn = try await APNsStandIn.start(in: directory, keyID: "KILL123456", logger: Self.quiet)
        let apns = standIn.server
        defer { Task { try? await apns.stop() } }

        // Frost tonight everywhere: every device is alerted.
        let openMeteo = MockOpenMeteo(
            scenario: MockScenario(frostEverywhere: FrostSpot(latitude: 0, longitude: 0, minimumC: -4, nights: [0])), logger: Self.quiet)
        try await openMeteo.withRunning { forecastURL in
            try await Self.subscribe(databasePath: databasePath)
            let environment = [
                "FROSTBOX_DATABASE_PATH": databasePath,
                "FROSTBOX_FORECAST_URL": forecastURL,
                "FROSTBOX_FORECAST_BATCH": "20",
                "FROSTBOX_NOTIFIER_BOXES_PER_CHUNK": "20",
                "FROSTBOX_NOTIFIER_CONCURRENCY": "\(Self.concurrency)",
                "FROSTBOX_NOTIFIER_RETRY_BACKOFF": "10ms",
                "FROSTBOX_APNS_APPS_FILE": standIn.appsPath,
                // Alerts exactly once is what this checks; devices are taken as verified (DeviceVerificationEndToEndTests proves them).
                "FROSTBOX_DEVICES_VERIFY": "false",
            ]
            let kills: [KillPoint] = [.forecastRequests(1), .pushes(1), .pushes(700), .pushes(1_500)]
            var killed = 0
            for point in kills {
                let forecastsBefore = openMeteo.counters.requests
                let pushesBefore = await apns.counters().requests
                let reached = try await Self.notifyKilled(directory: directory, environment: environment) {
                    switch point {
                    case .forecastRequests(let n): openMeteo.counters.requests - forecastsBefore >= n
                    case .pushes(let n): await apns.counters().requests - pushesBefore >= n
                    }
                }
                if reached { killed += 1 }
            }
            // At least the kills during delivery must have found the run still going.
            #expect(killed >= 3, "only \(killed) kills hit a running process")

            // Run to completion: the last run finds nothing left to send.
            #expect(try await Self.notifyToCompletion(directory: directory, environment: environment, databasePath: databasePath))

            // What was planned, from the database: one row per device and event, all delivered.
            let planned = try await Self.plannedIDs(databasePath)
            let events = try await Self.eventsPerBox(databasePath)
            #expect(events.boxes == Self.boxes)
            #expect(events.perBox >= 1)
            #expect(planned.count == (Self.devices * 2 - Self.sharedBoxDevices) * events.perBox, "one alert per device and event")
            #expect(Set(planned.values).count == planned.count, "each alert has its own apns-id")
            let deliveries = await apns.deliveries()
            let byID = Dictionary(grouping: deliveries, by: { $0.messageID.uppercased() })
            #expect(Set(byID.keys) == Set(planned.values.map { $0.uppercased() }), "delivered exactly the planned alerts")
            // Sent again after a kill: the same request (payload, collapse-id, expiration, token).
            var resent = 0
            for (_, sends) in byID where sends.count > 1 {
                resent += sends.count - 1
                let first = sends[0]
                for again in sends.dropFirst() {
                    #expect(
                        again.payload == first.payload && again.collapseID == first.collapseID
                            && again.expiration == first.expiration && again.token == first.token)
                }
            }
            // Only pushes in flight, or answered but not yet durable, at a kill go out again:
            // far fewer than a run's alerts.
            #expect(resent <= killed * (Self.concurrency + 600), "resent \(resent) after \(killed) kills")
            print("notify kill test: \(killed) kills, \(planned.count) alerts, \(resent) sent again")
        }
    }

    /// Runs `notify --once` and kills it with SIGKILL once `reached` holds; whether it was
    /// still running then.
    static func notifyKilled(directory: URL, environment: [String: String], when reached: () async -> Bool) async throws -> Bool {
        let run = try ServerProcess(arguments: ["notify", "--once"], directory: directory, environment: environment)
        try run.launch()
        return try await run.kill(when: reached)
    }

    /// Runs `notify --once` (at most three times) until the outbox has nothing pending; whether
    /// it got there. Every run must exit 0 (completed) or 2 (degraded).
    static func notifyToCompletion(directory: URL, environment: [String: String], databasePath: String) async throws -> Bool {
        for _ in 0..<3 {
            let run = try ServerProcess(arguments: ["notify", "--once"], directory: directory, environment: environment)
            try run.launch()
            let status = try await run.wait(timeout: 120)
            #expect(status == 0 || status == 2, "notify --once exited \(status): \(run.log.suffix(2000))")
            if try await pending(databasePath) == 0 { return true }
        }
        return false
    }

    /// Devices whose two places are in one box (their alerts for that box are one).
    static var sharedBoxDevices: Int { devices / 10 }

    /// `devices` devices over `boxes` boxes, two places each; one device in ten has both in one box.
    static func subscribe(databasePath: String) async throws {
        var config = FrostboxSettings()
        config.databasePath = databasePath
        let components = try FrostboxApplication.Components(config: config, logger: quiet)
        let now = Int64(Date().timeIntervalSince1970)
        for device in 0..<devices {
            let tail = String(device, radix: 16)
            let token = DeviceToken(trusted: "ab" + String(repeating: "0", count: 62 - tail.count) + tail)
            let first = device % boxes
            let second = device < sharedBoxDevices ? first : (device * 7 + 3) % boxes == first ? (first + 1) % boxes : (device * 7 + 3) % boxes
            for (index, box) in [first, second].enumerated() {
                let place = try Coordinate(latitude: 60.002 + Double(box / 10) * 0.05, longitude: 20.002 + Double(box % 10) * 0.05 + Double(index) * 0.001)
                _ = try await components.subscriptions.subscribe(
                    token, to: NewSubscription(coordinate: place, name: try PlaceName("Place \(index)")), at: now - 86_400)
            }
        }
        try await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
    }

    /// The boxes with alerts, and the frost events (night, level) each has: the same in every box.
    static func eventsPerBox(_ path: String) async throws -> (boxes: Int, perBox: Int) {
        let database = try FrostboxDatabase(path: path, logger: quiet)
        return try await database.pool.read { db in
            let boxes = try Int.fetchOne(db, sql: "SELECT count(DISTINCT box) FROM outbox") ?? 0
            let events = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT night, level FROM outbox)") ?? 0
            let boxEvents = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT box, night, level FROM outbox)") ?? 0
            #expect(boxEvents == boxes * events, "every box has the same frost events")
            return (boxes, events)
        }
    }

    static func pending(_ path: String) async throws -> Int {
        let database = try FrostboxDatabase(path: path, logger: quiet)
        return try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE status = 'pending'") ?? -1 }
    }

    /// Outbox row id → the apns-id it was delivered under (every row must be delivered).
    static func plannedIDs(_ path: String) async throws -> [Int64: String] {
        let database = try FrostboxDatabase(path: path, logger: quiet)
        return try await database.pool.read { db in
            var result: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, status, delivered_message_id FROM outbox") {
                let status: String = row["status"]
                #expect(status == "delivered")
                result[row["id"]] = row["delivered_message_id"] ?? ""
            }
            return result
        }
    }
}
