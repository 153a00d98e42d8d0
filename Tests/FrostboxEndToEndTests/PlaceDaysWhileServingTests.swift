import AsyncHTTPClient
import Foundation
import Testing

/// Days of GeoNames changes applied in place by `frostbox import` (another process) into
/// the places file of a running `serve`, on a busy machine: once an import has exited 0,
/// the very next search through the server answers from the day it committed.
@Suite("In-place days while serving", .serialized)
struct PlaceDaysWhileServingTests {
    static let helsinki: Int64 = 658_225

    /// Helsinki's row of the extract with `name` added to its alternate names.
    static func renamedHelsinki(_ name: String) throws -> String {
        let extract = try String(contentsOfFile: PlaceImportWhileServingTests.extractPath, encoding: .utf8)
        let row = extract.split(separator: "\n").first { $0.hasPrefix("\(helsinki)\t") }!
        var fields = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[3] += ",\(name)"
        return fields.joined(separator: "\t") + "\n"
    }

    @Test(
        "each committed day is served by the running server at once, day after day, with the CPU busy (the server seeded its places in process)",
        .timeLimit(.minutes(10)))
    func everyDayServedAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbPath = directory.appendingPathComponent("frostbox.sqlite").path
        // Seeding is a bulk import inside the server process, the case that lost the lock.
        let environment = ["FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0", "FROSTBOX_PLACES_SEED_PATH": PlaceImportWhileServingTests.extractPath]
        let server = try ServerProcess(arguments: ["serve", "--port", "0", "--db", dbPath], directory: directory, environment: environment)
        try await server.start()
        defer { server.stop() }
        let busy = BusyCores(2)
        defer { busy.stop() }
        var stale: [String] = []
        for day in 1...5 {
            let name = "Frostday\(day)"
            let file = directory.appendingPathComponent("modifications-2026-11-\(10 + day).txt")
            try Data(try Self.renamedHelsinki(name).utf8).write(to: file)
            let importer = try ServerProcess(arguments: ["import", "geonames", file.path, "--db", dbPath], directory: directory, environment: environment)
            try importer.launch()
            #expect(try await importer.wait(timeout: 300) == 0, "\(importer.log.suffix(1000))")
            // The first answer after the import's exit, not a later one.
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/v1/places?q=\(name.lowercased())&lat=60.2&lon=24.9&limit=5"),
                timeout: .seconds(60))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            if response.status.code != 200 || !body.contains("\"id\":\(Self.helsinki)") { stale.append("day \(day): \(body.prefix(200))") }
        }
        #expect(stale.isEmpty, "answers from before the committed day: \(stale)")
    }
}
