import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `frostbox import` into the places file of a running `serve`: every search and every
/// device write is answered 2xx throughout, and the server answers from the new places as
/// soon as the import ends, without a restart.
@Suite("Importing places while serving", .serialized)
struct PlaceImportWhileServingTests {
    static var extractPath: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("data/geonames/nordic-cities1000.txt").path
    }

    /// `count` synthetic towns named `Pakkanen<N>` around Vantaa (one box each few).
    static func dump(count: Int) -> String {
        (0..<count).map { index in
            let latitude = 60.0 + Double(index % 400) * 0.002
            let longitude = 24.5 + Double(index / 400) * 0.004
            return "\(90_000_000 + index)\tPakkanen\(index)\tPakkanen\(index)\tFrostby\(index),Pakkaskylä \(index)\t"
                + String(format: "%.5f\t%.5f", latitude, longitude)
                + "\tP\tPPL\tFI\t\t01\t\t\t\t\(100 + index)\t\t\tEurope/Helsinki\t2026-11-23"
        }.joined(separator: "\n") + "\n"
    }

    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var recorded: [String] = []
        var answered: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
        var failures: [String] {
            lock.lock()
            defer { lock.unlock() }
            return recorded
        }
        func record(_ failure: String?) {
            lock.lock()
            count += 1
            if let failure { recorded.append(failure) }
            lock.unlock()
        }
    }

    func search(_ port: Int, _ query: String) async throws -> (status: UInt, body: String) {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/places?\(query)"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, String(buffer: body))
    }

    /// A search and a subscription write in flight at all times, until `running()` is false.
    func load(port: Int, phase: Int, tally: Tally, while running: @escaping @Sendable () -> Bool) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    var sequence = 0
                    while running() {
                        sequence += 1
                        do {
                            if worker % 2 == 0 {
                                let (status, body) = try await search(port, "q=hel&lat=60.2&lon=24.9&limit=5")
                                tally.record(status == 200 && body.contains("Helsinki") ? nil : "search \(status): \(body.prefix(200))")
                            } else {
                                let token = String(format: "%08x%08x%016x", phase, worker, sequence)
                                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/devices/\(token)/subscriptions")
                                request.method = .POST
                                request.headers.add(name: "Content-Type", value: "application/json")
                                request.body = .bytes(ByteBuffer(string: #"{"latitude": 60.2, "longitude": 24.9, "name": "Home"}"#))
                                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                                let body = try await response.body.collect(upTo: 1 << 16)
                                tally.record(response.status.code == 201 ? nil : "subscribe \(response.status.code): \(String(buffer: body).prefix(200))")
                            }
                        } catch {
                            tally.record("\(error)")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "a bulk import and then a day's changes, into the running server's places file: no failed request, the bulk import's places served at once, the day committed"
    )
    func importWhileServing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbPath = directory.appendingPathComponent("frostbox.sqlite").path
        let environment = ["FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0", "FROSTBOX_PLACES_SEED_PATH": Self.extractPath]
        let server = try ServerProcess(arguments: ["serve", "--port", "0", "--db", dbPath], directory: directory, environment: environment)
        try await server.start()
        defer { server.stop() }
        let port = server.port
        #expect(try await search(port, "q=pakkanen1&lat=60.2&lon=24.6").body.contains("\"results\":[]"))

        let dumpURL = directory.appendingPathComponent("synthetic.txt")
        try Data(Self.dump(count: 20_000).utf8).write(to: dumpURL)
        let modifications = directory.appendingPathComponent("modifications-2026-11-24.txt")
        let helsinki = try String(contentsOfFile: Self.extractPath, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("658225\t") }!
        var fields = helsinki.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[3] = fields[3] + ",Helsinki Frost City"
        try Data((fields.joined(separator: "\t") + "\n").utf8).write(to: modifications)

        var importLogs: [String] = []
        for (phase, (files, flags)) in [([dumpURL.path], ["--rebuild"]), ([modifications.path], [])].enumerated() {
            let importer = try ServerProcess(
                arguments: ["import", "geonames"] + files + ["--db", dbPath] + flags, directory: directory, environment: environment)
            try importer.launch()
            let tally = Tally()
            let process = importer.process
            // Until the import ends, and at least until one request was answered: a day's file
            // of one row can be applied before the first request of a loaded machine returns.
            await load(port: port, phase: phase, tally: tally, while: { process.isRunning || tally.answered == 0 })
            #expect(try await importer.wait(timeout: 300) == 0, "\(importer.log.suffix(1000))")
            #expect(tally.failures.isEmpty, "\(tally.failures.prefix(5))")
            #expect(tally.answered > 0)
            importLogs.append(importer.log)
        }
        // Served from the new places, no restart.
        let found = try await search(port, "q=pakkanen1234&lat=60.2&lon=24.6")
        #expect(found.status == 200 && found.body.contains("\"id\":90001234"), "\(found.body.prefix(300))")
        // The day's change is served by the running server (not only by a fresh reader of
        // the places file) as soon as its import has exited.
        let renamed = try await search(port, "q=helsinki%20frost&lat=60.2&lon=24.9")
        #expect(renamed.body.contains("\"matched_name\":\"Helsinki Frost City\""), "\(renamed.body.prefix(300)) imports: \(importLogs)")
    }
}
