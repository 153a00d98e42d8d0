import Foundation
import FrostboxCore
import FrostboxSQLite
import Testing

/// The `frostbox` executable's exit statuses and messages, as the README documents them.
@Suite("Command line exit statuses", .serialized)
struct CommandLineTests {
    struct Outcome {
        let status: Int32
        let output: String
    }

    /// Runs `frostbox arguments` in a fresh directory (its working directory) and waits for it.
    static func frostbox(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Outcome {
        let directory = try directory ?? Self.directory()
        let process = Process()
        let pipe = Pipe()
        process.executableURL = ServerProcess.executableURL
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FROSTBOX_") }.merging(environment) { $1 }
        process.standardOutput = pipe
        process.standardError = pipe
        try ProcessLaunch.run(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// `frostbox(…)` for a test whose loopback doubles run in this process: the wait for the
    /// command blocks a thread of its own, never one of the few threads that run the doubles'
    /// tasks (which would starve them, and the command would wait for them in vain).
    static func frostboxAsync(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try frostbox(arguments, environment: environment, in: directory) })
            }
        }
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("--version prints the version and exits 0")
    func version() throws {
        let outcome = try Self.frostbox(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(outcome.output)")
    }

    @Test("--help names both push platforms, not APNs alone")
    func helpAbstract() throws {
        let outcome = try Self.frostbox(["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("APNs (iOS) and FCM (Android)"), "\(outcome.output)")
    }

    @Test(
        "usage errors exit 64 with the subcommand's usage and a message in its own terms",
        arguments: [
            (["runs", "--limit", "0"], "--limit must be at least 1", "frostbox runs"),
            (["push-test", "--app", "com.example.frost", "--token", "abc"], "--token: token must be", "frostbox push-test"),
            (["search", ""], "the search text must not be empty", "frostbox search"),
            (["search", "hel", "--near", "91,0"], "--near must be LAT,LON", "frostbox search"),
            (["search", "hel", "--limit", "0"], "--limit must be between 1 and 50", "frostbox search"),
        ])
    func usageErrors(arguments: [String], message: String, usage: String) throws {
        let outcome = try Self.frostbox(arguments)
        #expect(outcome.status == 64, "\(arguments): \(outcome.output)")
        #expect(outcome.output.contains(message), "\(arguments): \(outcome.output)")
        #expect(outcome.output.contains("Usage: \(usage)"), "\(arguments): \(outcome.output)")
        #expect(!outcome.output.contains("q must"), "\(arguments): \(outcome.output)")
    }

    @Test("configuration errors exit 78 naming what is wrong")
    func configurationErrors() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let typo = try Self.frostbox(["runs"], environment: ["FROSTBOX_SEVRER_PORT": "1"], in: directory)
        #expect(typo.status == 78)
        #expect(typo.output.contains("FROSTBOX_SEVRER_PORT") && typo.output.contains("FROSTBOX_SERVER_PORT"), "\(typo.output)")

        let folder = try Self.frostbox(["runs", "--db", "/no/such/folder/frostbox.sqlite"], in: directory)
        #expect(folder.status == 78)
        #expect(folder.output.contains("the folder /no/such/folder does not exist"), "\(folder.output)")

        let apps = directory.appendingPathComponent("apps.json")
        try Data(#"{"apps": [{"bundle_id": "com.example.frost", "key_path": "/no/such/AuthKey.p8", "key_id": "ABCDE12345", "team_id": "TEAM123456"}]}"#.utf8)
            .write(to: apps)
        let key = try Self.frostbox(["notify", "--once"], environment: ["FROSTBOX_APNS_APPS_FILE": apps.path], in: directory)
        #expect(key.status == 78, "\(key.output)")
        #expect(key.output.contains("com.example.frost") && key.output.contains("/no/such/AuthKey.p8"), "\(key.output)")
    }

    @Test("import exits 65 with a message when a file yields nothing or the filters leave nothing")
    func importOfNothing() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.txt")
        try Data().write(to: empty)
        let nothing = try Self.frostbox(["import", "geonames", empty.path], in: directory)
        #expect(nothing.status == 65, "\(nothing.output)")
        #expect(nothing.output.contains("nothing imported: the files hold no GeoNames rows"), "\(nothing.output)")

        let row = [
            "660158", "Espoo", "Espoo", "", "60.2052", "24.6522", "P", "PPLA3", "FI", "", "01", "", "", "", "256760", "", "16", "Europe/Helsinki", "2016-06-11",
        ]
        let cities = directory.appendingPathComponent("cities.txt")
        try Data((row.joined(separator: "\t") + "\n").utf8).write(to: cities)
        let filtered = try Self.frostbox(["import", "geonames", cities.path, "--countries", "SE"], in: directory)
        #expect(filtered.status == 65, "\(filtered.output)")
        #expect(filtered.output.contains("left out all 1 places"), "\(filtered.output)")

        let imported = try Self.frostbox(["import", "geonames", cities.path], in: directory)
        #expect(imported.status == 0, "\(imported.output)")
        // An empty import with --replace leaves the stored places alone.
        let replaced = try Self.frostbox(["import", "geonames", empty.path, "--replace"], in: directory)
        #expect(replaced.status == 65, "\(replaced.output)")
        #expect(replaced.output.contains("the stored places are unchanged"), "\(replaced.output)")
        let search = try Self.frostbox(["search", "espoo"], in: directory)
        #expect(search.output.contains("Espoo"), "\(search.output)")
        // Places in the bundled extract's countries alone: the search says how to import the world.
        let newYork = try Self.frostbox(["search", "new york"], in: directory)
        #expect(newYork.output.contains("no places match \"new york\""), "\(newYork.output)")
        #expect(newYork.output.contains("note: places cover only the bundled Nordic extract"), "\(newYork.output)")
        #expect(newYork.output.contains("frostbox import geonames cities1000.zip"), "\(newYork.output)")
        // A negative latitude after --near is the point, not an option; Espoo, 15,000 km from
        // Sydney, completes the empty nearby list, with its distance.
        let farAway = try Self.frostbox(["search", "espoo", "--near", "-33.87,151.2"], in: directory)
        #expect(farAway.status == 0, "\(farAway.output)")
        #expect(farAway.output.contains("Espoo") && farAway.output.contains(" km"), "\(farAway.output)")
    }

    @Test("notify --once exits 1 when every box failed, and the run is stored as failed")
    func notifyExitStatus() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("frostbox.sqlite").path
        let store = GRDBSubscriptionStore(database: try FrostboxDatabase(path: path))
        _ = try await store.subscribe(
            try DeviceToken("0123456789abcdef0123456789abcdef"),
            to: NewSubscription(coordinate: try Coordinate(latitude: 60.19, longitude: 25.01), name: try PlaceName("Home")), at: 1)
        // Port 1 on loopback refuses at once: every box fails.
        let outcome = try Self.frostbox(
            ["notify", "--once", "--db", path, "--set", "forecast.url=http://127.0.0.1:1", "--set", "forecast.attempts=1"], in: directory)
        #expect(outcome.status == 1, "\(outcome.output)")
        #expect(outcome.output.contains(" failed: boxes=1"), "\(outcome.output)")
        // Its reason at the default log level, not only under log.level=debug.
        #expect(outcome.output.contains("error=box-failures=1: transport"), "\(outcome.output)")
        let runs = try Self.frostbox(["runs", "--db", path, "--json"], in: directory)
        #expect(runs.status == 0)
        #expect(runs.output.contains(#""status" : "failed""#), "\(runs.output)")
        // Nothing was sent: no platform has a count.
        #expect(runs.output.contains(#""by_platform" : {"#), "\(runs.output)")
        let table = try Self.frostbox(["runs", "--db", path], in: directory)
        #expect(table.output.hasPrefix("ID"), "\(table.output)")
        #expect(table.output.contains("BY PLATFORM (DELIVERED/FAILED)"), "\(table.output)")
        #expect(table.output.contains("failed"), "\(table.output)")
    }

    @Test("notify --once --demo beside a demo database plans from the demo's forecasts and only logs pushes")
    func notifyDemo() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("frostbox.sqlite").path
        let store = GRDBSubscriptionStore(database: try FrostboxDatabase(path: path))
        _ = try await store.subscribe(
            try DeviceToken("0123456789abcdef0123456789abcdef"),
            to: NewSubscription(coordinate: try Coordinate(latitude: 60.19, longitude: 25.01), name: try PlaceName("Home")), at: 1)
        // The forecast URL would refuse: the demo never asks it.
        // Logs as JSON lines (log.format), one object per line.
        let outcome = try Self.frostbox(
            ["notify", "--once", "--demo", "--db", path, "--set", "forecast.url=http://127.0.0.1:1", "--set", "log.format=json"], in: directory)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains(" completed: boxes=1"), "\(outcome.output)")
        #expect(outcome.output.contains("requests=0"), "\(outcome.output)")
        let pushes = outcome.output.split(separator: "\n").filter { $0.contains("push (log only") }
        #expect(pushes.count >= 2, "tonight and tomorrow night at least: \(outcome.output)")
        for line in pushes {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] as? String == "info")
            #expect(object?["token"] as? String == "012345…cdef", "\(line)")
            #expect(!line.contains("0123456789abcdef0123456789abcdef"))
        }
        #expect(pushes.contains { $0.contains("Hard frost tonight at Home: low −4 °C around 05:00") }, "\(outcome.output)")
        let forecast = try Self.frostbox(["forecast", "--demo", "--near", "60.19,25.01", "--db", path], in: directory)
        #expect(forecast.status == 0, "\(forecast.output)")
        #expect(forecast.output.contains("hard-freeze"), "\(forecast.output)")
    }
}
