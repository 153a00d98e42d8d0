import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxPostgres
import Logging
import MockAPNs
import MockOpenMeteo
import NIOCore
import NIOHTTP1
import TestPostgres
import Testing

/// Three real `frostbox serve` processes on one PostgreSQL cluster (a throwaway one, started
/// here), with the APNs and Open-Meteo stand-ins: device writes spread over the instances are
/// seen by all; a notify run is shared — started on one, joined by a second on request and
/// by the third on its own — its boxes claimed in chunks under leases; the instance that
/// started it is killed with SIGKILL mid-run, and the others take over what it held once its
/// leases expire: every planned alert delivered under its one apns-id, a resend
/// byte-identical, each box's forecast asked for once (but for the chunk in flight at the kill).
@Suite("three instances on one PostgreSQL", .serialized, .requiresPostgres)
struct ClusterEndToEndTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
    static let boxes = 40
    static let devices = 600
    static let adminToken = "cluster-admin-token-0123456789abcdef"

    @Test("writes on any instance are shared; a shared run whose starter is killed is finished by the others, each alert under one apns-id")
    func killedInstanceIsTakenOver() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let databaseName = try await cluster.createDatabaseOffThePool(prefix: "e2e")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // A little latency per push: the run is still delivering when it is killed.
        let standIn = try await APNsStandIn.start(in: directory, keyID: "CLUS123456", latency: .milliseconds(2), logger: Self.quiet)
        let apns = standIn.server
        defer { Task { try? await apns.stop() } }

        let openMeteo = MockOpenMeteo(
            scenario: MockScenario(frostEverywhere: FrostSpot(latitude: 0, longitude: 0, minimumC: -4, nights: [0])), logger: Self.quiet)
        try await openMeteo.withRunning { forecastURL in
            func environment(_ name: String) -> [String: String] {
                [
                    "FROSTBOX_DATABASE_URL": cluster.url(database: databaseName) + "?sslmode=disable",
                    // Each instance's own places file (and no seeding: places are not under test).
                    "FROSTBOX_DATABASE_PATH": directory.appendingPathComponent("\(name).sqlite").path,
                    "FROSTBOX_PLACES_SEED_PATH": "",
                    "FROSTBOX_SERVER_PORT": "0",
                    "FROSTBOX_ADMIN_TOKEN": Self.adminToken,
                    "FROSTBOX_FORECAST_URL": forecastURL,
                    "FROSTBOX_FORECAST_BATCH": "10",
                    "FROSTBOX_NOTIFIER_BOXES_PER_CHUNK": "10",
                    "FROSTBOX_NOTIFIER_CONCURRENCY": "8",
                    "FROSTBOX_NOTIFIER_RETRY_BACKOFF": "10ms",
                    // Only runs started here: no scheduled run in the test's time.
                    "FROSTBOX_NOTIFIER_FIRST_RUN_DELAY": "24h",
                    "FROSTBOX_NOTIFIER_JOIN_INTERVAL": "1s",
                    "FROSTBOX_NOTIFIER_LEASE": "3s",
                    "FROSTBOX_APNS_APPS_FILE": standIn.appsPath,
                    // Alerts exactly once is what this checks; devices are taken as verified (DeviceVerificationEndToEndTests proves them).
                    "FROSTBOX_DEVICES_VERIFY": "false",
                    "FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0",
                ]
            }
            let first = try ServerProcess(arguments: ["serve"], directory: directory, environment: environment("a"))
            let second = try ServerProcess(arguments: ["serve"], directory: directory, environment: environment("b"))
            let third = try ServerProcess(arguments: ["serve"], directory: directory, environment: environment("c"))
            try await first.start()
            try await second.start()
            try await third.start()
            defer {
                first.stop()
                second.stop()
                third.stop()
            }
            let ports = [first.port, second.port, third.port]
            let migrations = try await cluster.query("SELECT name FROM schema_migration ORDER BY name", database: databaseName).map { $0[0] }
            #expect(migrations == PostgresDatabase.migrationNames.sorted(), "every migration applied, once")

            // Device writes spread over both instances, two places per device.
            try await Self.subscribeAll(ports: ports)
            for (index, port) in ports.enumerated() {
                // A device written through another instance is seen here.
                let token = Self.token(index + 1)
                let list = try await Self.request(.GET, port: port, path: "/v1/devices/\(token)/subscriptions")
                #expect(list.status == 200)
                #expect(list.body.components(separatedBy: "\"box\"").count - 1 == 2, "\(list.body)")
            }
            let counts = try await cluster.query("SELECT count(*), (SELECT count(*) FROM subscription) FROM device", database: databaseName)
            #expect(counts.first == ["\(Self.devices)", "\(Self.devices * 2)"])

            // One run at a time, cluster-wide: the second instance asked for one joins the first's.
            let started = try await Self.request(.POST, port: first.port, path: "/admin/notify", admin: true)
            #expect(started.status == 202, "\(started.body)")
            let joined = try await Self.request(.POST, port: second.port, path: "/admin/notify", admin: true)
            #expect(joined.status == 409, "no second run beside the first: \(joined.body)")

            // Kill the first mid-run; the others take over what it held once its leases expire.
            let killed = try await first.kill(when: { await apns.counters().requests >= 150 }, timeout: 120)
            #expect(killed, "the run ended before the kill")
            try await Self.waitForRuns(port: second.port, finished: 1)

            // Every planned alert delivered, under its own apns-id, the resends identical.
            let rows = try await cluster.query("SELECT status, delivered_message_id FROM outbox", database: databaseName)
            let events = try await cluster.query("SELECT count(*) FROM (SELECT DISTINCT night, level FROM outbox) AS e", database: databaseName)
            let perBox = Int(events.first?.first ?? "") ?? 0
            #expect(perBox >= 1)
            #expect(rows.count == Self.devices * 2 * perBox, "one alert per device, place box and event")
            #expect(rows.allSatisfy { $0.first == "delivered" }, "every alert delivered")
            let planned = Set(rows.map { $0[1].uppercased() })
            #expect(planned.count == rows.count, "each alert has its own apns-id")
            let deliveries = await apns.deliveries()
            let byID = Dictionary(grouping: deliveries, by: { $0.messageID.uppercased() })
            #expect(Set(byID.keys) == planned, "delivered exactly the planned alerts")
            var resent = 0
            for (_, sends) in byID where sends.count > 1 {
                resent += sends.count - 1
                for again in sends.dropFirst() {
                    #expect(again.payload == sends[0].payload && again.token == sends[0].token && again.collapseID == sends[0].collapseID)
                }
            }
            // Only pushes in flight, or answered but not yet recorded, at the kill go out again.
            #expect(resent <= 8 + 600, "resent \(resent)")
            // The shared cache: a box is asked for once, but for a chunk whose answer died with
            // the killed instance before it was cached (at most one chunk of 10).
            let asked = openMeteo.counters.locations
            #expect(asked >= Self.boxes && asked <= Self.boxes + 10, "forecast locations asked for: \(asked)")

            // One run, worked on by all three; the killed one never finished its part.
            let runs = try await cluster.query("SELECT status FROM notify_run ORDER BY id", database: databaseName)
            #expect(runs.map { $0[0] } == ["completed"], "\(runs)")
            let workers = try await cluster.query("SELECT worker, finished_at IS NOT NULL, boxes FROM run_worker ORDER BY joined_at", database: databaseName)
            #expect(workers.count == 3, "\(workers)")
            #expect(workers.filter { $0[1] == "t" }.count == 2, "the two live workers finished their parts: \(workers)")
            let boxesDone = try await cluster.query(
                "SELECT count(*) FILTER (WHERE done_at IS NOT NULL), count(DISTINCT worker) FROM run_box", database: databaseName)
            #expect(boxesDone.first?.first == "\(Self.boxes)", "every box done: \(boxesDone)")
            // The worker's view: /admin/stats and `frostbox runs` name who did what.
            let stats = try await Self.request(.GET, port: third.port, path: "/admin/stats", admin: true)
            let statsObject = try JSONSerialization.jsonObject(with: Data(stats.body.utf8)) as? [String: Any]
            let latest = (statsObject?["recent_runs"] as? [[String: Any]])?.first
            let shown = (latest?["workers"] as? [[String: Any]])?.compactMap { $0["worker"] as? String } ?? []
            #expect(Set(shown) == Set(workers.map { $0[0] }), "\(stats.body)")
            let runsCommand = try ServerProcess(arguments: ["runs"], directory: directory, environment: environment("c"))
            try runsCommand.launch()
            #expect(try await runsCommand.wait(timeout: 60) == 0)
            let table = runsCommand.log
            #expect(workers.allSatisfy { table.contains("worker \($0[0]):") }, "\(table)")
            #expect(table.contains("no part stored"), "the killed instance is shown as such: \(table)")
            print("cluster test: \(rows.count) alerts, \(resent) sent again after the kill, workers \(workers), boxes by \(boxesDone)")
        }
    }

    static func token(_ device: Int) -> String {
        let tail = String(device, radix: 16)
        return "cd" + String(repeating: "0", count: 62 - tail.count) + tail
    }

    /// `devices` devices, each with two places in different boxes; writes alternate between the instances.
    static func subscribeAll(ports: [Int]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for device in stride(from: lane, to: devices, by: 8) {
                        for place in 0..<2 {
                            let box = (device + place * 7) % boxes
                            let latitude = 60.002 + Double(box / 8) * 0.05
                            let longitude = 20.002 + Double(box % 8) * 0.05
                            let body = #"{"latitude":\#(latitude),"longitude":\#(longitude),"name":"Place \#(place)"}"#
                            let port = ports[(device + place) % ports.count]
                            let answer = try await request(.POST, port: port, path: "/v1/devices/\(token(device))/subscriptions", body: body)
                            guard answer.status == 201 else {
                                throw ServerProcess.ServerError(message: "subscribe answered \(answer.status): \(answer.body)")
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func request(_ method: HTTPMethod, port: Int, path: String, body: String? = nil, admin: Bool = false) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        if admin { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), text)
    }

    /// Waits until `/admin/stats` shows `finished` runs after the latest, none running.
    static func waitForRuns(port: Int, finished: Int, timeout: Double = 180) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let stats = try await request(.GET, port: port, path: "/admin/stats", admin: true)
            if stats.status == 200, let data = stats.body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let runs = object["recent_runs"] as? [[String: Any]], let latest = runs.first,
                let status = latest["status"] as? String, status != "running"
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServerProcess.ServerError(message: "no run finished in \(timeout) s")
    }
}
