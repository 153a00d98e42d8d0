import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxSQLite
import GRDB
import Logging
import MockOpenMeteo
import Testing

/// Issue #48 with the real executable: `notify --once` checks nights kept four days ago
/// against the mock's archive, five boxes a request; killed with SIGKILL after its second
/// archive request, then run again. Every night ends observed once, the scores are the ones
/// the mock's observed nights make, and no more than the batch in flight is asked again.
@Suite("Night check killed with SIGKILL", .serialized)
struct NightCheckKillTests {
    static let quiet = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
    static let boxCount = 30
    static let batch = 5

    /// Box `i` of the row checked, near Helsinki (UTC+2 in winter: the night runs 16:00–08:00 UTC).
    static func coordinate(_ index: Int) -> Coordinate {
        Coordinate(uncheckedLatitude: 60.202 + Double(index / 10) * 0.05, longitude: 24.002 + Double(index % 10) * 0.05)
    }

    /// What happened: boxes 0–5 froze and were alerted (hits), 6–9 were alerted and did not
    /// (false alarms), 10–13 froze unalerted (misses), the rest stayed mild.
    static func observedLow(_ index: Int) -> Double {
        switch index {
        case 0..<6: -3
        case 6..<10: 5
        case 10..<14: -1
        default: 4
        }
    }

    @Test("kill -9 after the second archive request: the next run finishes the check; each night observed once; scores as set")
    func killedCheckResumes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-check-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        let now = Int64(Date().timeIntervalSince1970)
        let night = LocalDate(daysSinceEpoch: now / 86_400 - 4)
        try await Self.seed(databasePath: databasePath, night: night, now: now)

        let spots = (0..<Self.boxCount).map { index in
            ObservedSpot(
                latitude: Self.coordinate(index).latitude, longitude: Self.coordinate(index).longitude, minimumC: Self.observedLow(index), nights: [night])
        }
        var faults = MockFaults()
        faults.latencyMilliseconds = 400
        let openMeteo = MockOpenMeteo(scenario: MockScenario(faults: faults, observed: spots), logger: Self.quiet)
        try await openMeteo.withRunning { forecastURL in
            let environment = [
                "FROSTBOX_DATABASE_PATH": databasePath,
                "FROSTBOX_FORECAST_URL": forecastURL,
                "FROSTBOX_FORECAST_BATCH": "\(Self.batch)",
                "FROSTBOX_FORECAST_PROBABILITY": "off",
                // The killed process's lease on the check runs out 3 s after its last renewal.
                "FROSTBOX_NOTIFIER_LEASE": "3s",
            ]
            let run = try ServerProcess(arguments: ["notify", "--once"], directory: directory, environment: environment)
            try run.launch()
            let killed = try await run.kill { openMeteo.counters.archiveRequests >= 2 }
            #expect(killed, "the check finished before the kill: \(run.log.suffix(1500))")
            let cut = try await Self.counts(databasePath)
            #expect(cut.chosen > 0 && cut.observed < Self.boxCount, "\(cut)")

            openMeteo.setFaults(MockFaults())
            // Within the dead process's lease the check is left alone.
            let early = try ServerProcess(arguments: ["notify", "--once"], directory: directory, environment: environment)
            try early.launch()
            _ = try await early.wait(timeout: 180)
            if try await Self.counts(databasePath).observed == cut.observed {
                #expect(early.log.contains("another instance is checking"), "\(early.log.suffix(1500))")
                try await Task.sleep(for: .seconds(4))
            }
            let again = try ServerProcess(arguments: ["notify", "--once"], directory: directory, environment: environment)
            try again.launch()
            let status = try await again.wait(timeout: 180)
            #expect(status == 0 || status == 2, "notify --once exited \(status): \(again.log.suffix(2000))")
            let counts = try await Self.counts(databasePath)
            #expect(counts.observed == Self.boxCount && counts.chosen == 0, "\(counts)")
            // Asked again: at most the batches in flight at the kill.
            let asked = openMeteo.counters.archiveLocations
            #expect(asked >= Self.boxCount && asked <= Self.boxCount + 2 * Self.batch, "\(asked) locations asked")

            let verify = try ServerProcess(arguments: ["verify", "--json"], directory: directory, environment: environment)
            try verify.launch()
            #expect(try await verify.wait(timeout: 60) == 0)
            let text = verify.log
            let json = try #require(text.firstIndex(of: "{").flatMap { try? JSONSerialization.jsonObject(with: Data(text[$0...].utf8)) as? [String: Any] })
            let overall = try #require(json["overall"] as? [String: Any])
            let freeze = try #require((overall["levels"] as? [[String: Any]])?.first { $0["level"] as? String == "freeze" })
            func value(_ key: String) -> Double? { (freeze[key] as? [String: Any])?["value"] as? Double }
            #expect(value("hits") == 6 && value("false_alarms") == 4 && value("misses") == 4 && value("correct_negatives") == 16, "\(freeze)")
            #expect(overall["nights"] as? Int == Self.boxCount)
        }
    }

    /// Subscribes a device to each box and keeps its night of `night` as if judged before it
    /// began: boxes 0–9 alerted at freeze.
    static func seed(databasePath: String, night: LocalDate, now: Int64) async throws {
        var config = FrostboxSettings()
        config.databasePath = databasePath
        let components = try FrostboxApplication.Components(config: config, logger: quiet)
        for index in 0..<boxCount {
            let token = DeviceToken(trusted: "cd" + String(repeating: "0", count: 60) + String(format: "%02x", index))
            _ = try await components.subscriptions.subscribe(
                token, to: NewSubscription(coordinate: coordinate(index), name: try PlaceName("Box \(index)")), at: now - 6 * 86_400)
        }
        try await components.forecasts.shutdown()
        await components.pushComponents.shutdown()
        let start = night.daysSinceEpoch * 86_400 + 16 * 3_600
        let store = GRDBNotifierStore(database: try FrostboxDatabase(path: databasePath, logger: quiet))
        try await store.keep(
            (0..<boxCount).map { index in
                KeptVerdict(
                    box: coordinate(index).box, night: night, windowStart: start, windowEnd: start + 16 * 3_600, utcOffsetSeconds: 7_200,
                    level: index < 10 ? .freeze : .none, minimumC: index < 10 ? -1 : 3, judgedAt: start - 7_200)
            })
        try await store.keep(
            (0..<10).map { NightAlert(box: coordinate($0).box, night: night, level: .freeze, sentAt: start - 7_200, lead: .sameNight) } as [NightAlert])
    }

    static func counts(_ path: String) async throws -> NightCheckCounts {
        try await GRDBNotifierStore(database: try FrostboxDatabase(path: path, logger: quiet)).nightCheckCounts()
    }
}
