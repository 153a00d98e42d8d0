import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing

/// One `frostbox import … --build DIR` and two `serve` processes reading `DIR` (a shared
/// volume): both switch to the new generation by themselves within the watch interval,
/// answering every search throughout; a damaged generation dropped into `DIR` is refused
/// and both keep serving the one they have.
@Suite("Places generations shared by several servers", .serialized)
struct PlaceGenerationsEndToEndTests {
    static let token = "generations-admin-token-0123456789"

    func get(_ port: Int, _ path: String) async throws -> (status: UInt, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Authorization", value: "Bearer \(Self.token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func post(_ port: Int, _ path: String) async throws -> (status: UInt, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(Self.token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// Whether the server on `port` says it serves `generation` (`/admin/stats`).
    func serves(_ port: Int, generation: String) async throws -> Bool {
        try await get(port, "/admin/stats").body.contains("\"places_generation\":\"\(generation)\"")
    }

    /// Runs `frostbox import geonames FILES --build DIR …` to completion.
    func build(_ arguments: [String], directory: URL) async throws -> String {
        let importer = try ServerProcess(arguments: ["import", "geonames"] + arguments, directory: directory)
        try importer.launch()
        #expect(try await importer.wait(timeout: 300) == 0, "\(importer.log.suffix(1500))")
        return importer.log
    }

    /// The generation file name a build printed.
    func generation(in log: String) -> String? {
        log.split(separator: "\n").first { $0.hasPrefix("generation: ") }.map { String($0.dropFirst(12).prefix { $0 != " " }) }
    }

    @Test("two servers on one directory switch to a built generation within the interval, no failed search; a damaged one is refused", .timeLimit(.minutes(10)))
    func twoServersOneImport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-\(UUID().uuidString)")
        let generations = directory.appendingPathComponent("generations")
        try FileManager.default.createDirectory(at: generations, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = generation(in: try await build([PlaceImportWhileServingTests.extractPath, "--build", generations.path, "--replace"], directory: directory))
        #expect(first != nil)
        let environment = [
            "FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0", "FROSTBOX_PLACES_PATH": generations.path, "FROSTBOX_PLACES_WATCH_INTERVAL": "1s",
            "FROSTBOX_ADMIN_TOKEN": Self.token,
        ]
        let servers = try ["a", "b"].map { name in
            try ServerProcess(
                arguments: ["serve", "--port", "0", "--db", directory.appendingPathComponent("\(name).sqlite").path], directory: directory,
                environment: environment)
        }
        for server in servers { try await server.start() }
        defer { for server in servers { server.stop() } }
        let busy = BusyCores(2)
        defer { busy.stop() }

        let day = directory.appendingPathComponent("modifications-2026-11-25.txt")
        try Data(try PlaceDaysWhileServingTests.renamedHelsinki("Frostgen Shared").utf8).write(to: day)
        let tally = PlaceImportWhileServingTests.Tally()
        let stop = Stopping()
        let ports = servers.map(\.port)
        async let searching: Void = withTaskGroup(of: Void.self) { group in
            for port in ports {
                group.addTask {
                    while !stop.isSet {
                        do {
                            let (status, body) = try await get(port, "/v1/places?q=hel&lat=60.2&lon=24.9&limit=5")
                            tally.record(status == 200 && body.contains("Helsinki") ? nil : "search \(status): \(body.prefix(200))")
                        } catch {
                            tally.record("\(error)")
                        }
                    }
                }
            }
        }
        let next = try #require(generation(in: try await build([day.path, "--build", generations.path], directory: directory)))
        for server in servers {
            // Bounded by the test's time limit: the watch interval is 1 s.
            while try await !serves(server.port, generation: next) {
                try await Task.sleep(for: .milliseconds(100))
            }
            let found = try await get(server.port, "/v1/places?q=frostgen%20shared&lat=60.2&lon=24.9")
            #expect(found.status == 200 && found.body.contains("\"id\":658225"), "\(found.body.prefix(300))")
            // The status page's summary and /metrics say so too.
            #expect(try await get(server.port, "/admin/status/summary").body.contains("\"generation\":\"\(next)\""))
            let metrics = try await get(server.port, "/metrics").body.split(separator: "\n")
            let switchedAt = metrics.first { $0.hasPrefix("frostbox_places_generation_switched_at_seconds ") }
            #expect(switchedAt.map { !$0.hasSuffix(" 0") && !$0.hasSuffix(" 0.0") } == true, "\(switchedAt ?? "missing")")
        }
        stop.set()
        await searching
        #expect(tally.failures.isEmpty, "\(tally.failures.prefix(5))")
        #expect(tally.answered > 0)

        // A damaged generation, newer than the one in use: refused, the servers keep theirs.
        let stem = "places-29991231T000000000Z-000000000000"
        let manifest = try String(contentsOf: generations.appendingPathComponent((next as NSString).deletingPathExtension + ".json"), encoding: .utf8)
        let size = try #require((try FileManager.default.attributesOfItem(atPath: generations.appendingPathComponent(next).path)[.size]) as? NSNumber)
        try Data(repeating: 0x5A, count: size.intValue).write(to: generations.appendingPathComponent(stem + ".sqlite"))
        try Data(manifest.replacingOccurrences(of: (next as NSString).deletingPathExtension, with: stem).utf8)
            .write(to: generations.appendingPathComponent(stem + ".json"))
        for server in servers {
            let reload = try await post(server.port, "/admin/places/reload")
            #expect(reload.status == 200 && reload.body.contains("\"result\":\"refused\""), "\(reload.body)")
            #expect(reload.body.contains("\"generation\":\"\(next)\""))
            let found = try await get(server.port, "/v1/places?q=frostgen%20shared&lat=60.2&lon=24.9")
            #expect(found.status == 200 && found.body.contains("\"id\":658225"))
            #expect(server.log.contains("refusing places generation"))
        }
    }
}

/// A flag set once, read by other tasks.
final class Stopping: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
