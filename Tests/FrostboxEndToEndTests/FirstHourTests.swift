import Foundation
import Testing

/// The quick start off the repository root: the binary carries the places its demo needs.
@Suite("The first hour: a binary copied alone")
struct FirstHourTests {
    /// A fresh directory with `bin/frostbox` (the built binary, copied alone) and an empty
    /// `home/` to start it from.
    static func copiedBinary() throws -> (root: URL, binary: URL, home: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-first-hour-\(UUID().uuidString)")
        let bin = root.appendingPathComponent("bin")
        let home = root.appendingPathComponent("home")
        for directory in [bin, home] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let binary = bin.appendingPathComponent("frostbox")
        // Copied by cp, not in this process: a file this process holds open for writing can be
        // inherited by a child that another test forks meanwhile, and exec then fails with
        // "text file busy".
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = [ServerProcess.executableURL.path, binary.path]
        try ProcessLaunch.run(copy)
        copy.waitUntilExit()
        try #require(copy.terminationStatus == 0)
        return (root, binary, home)
    }

    @Test("serve --demo from another directory, with the binary copied alone, seeds the bundled places and finds Helsinki")
    func copiedBinaryDemo() async throws {
        let (root, binary, home) = try Self.copiedBinary()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try ServerProcess(arguments: ["serve", "--demo", "--port", "0"], directory: home, executable: binary)
        try await server.start()
        defer { server.stop() }
        let found = try await ClusterEndToEndTests.request(.GET, port: server.port, path: "/v1/places?q=hel&lat=60.19&lon=25.01")
        #expect(found.status == 200)
        #expect(found.body.contains("\"name\":\"Helsinki\""), "\(found.body.prefix(400))")
        #expect(server.log.contains("seeded places"), "\(server.log.suffix(1500))")
        #expect(!server.log.contains("seed file is missing"))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("frostbox-places.sqlite").path))
    }

    @Test("places.seed_path still overrides the bundled extract, and an empty value still means no seed")
    func seedPathOverrides() async throws {
        let (root, binary, home) = try Self.copiedBinary()
        defer { try? FileManager.default.removeItem(at: root) }
        let seed = home.appendingPathComponent("one-town.txt")
        let row = [
            "90000001", "Frostbyville", "Frostbyville", "", "60.2", "25.0", "P", "PPL", "FI", "", "01", "", "", "",
            "5000", "", "10", "Europe/Helsinki", "2026-01-01",
        ].joined(separator: "\t")
        try Data((row + "\n").utf8).write(to: seed)
        for (name, value, expected) in [("own", seed.path, ["Frostbyville"]), ("none", "", [String]())] {
            let server = try ServerProcess(
                arguments: ["serve", "--demo", "--port", "0", "--db", home.appendingPathComponent("\(name).sqlite").path],
                directory: home, environment: ["FROSTBOX_PLACES_SEED_PATH": value], executable: binary)
            try await server.start()
            defer { server.stop() }
            let all = try await ClusterEndToEndTests.request(.GET, port: server.port, path: "/v1/places?q=fro&lat=60.19&lon=25.01&limit=50")
            #expect(all.status == 200)
            let names = Self.names(in: all.body)
            #expect(names == expected, "\(name): \(all.body.prefix(400))")
        }
    }

    static func names(in body: String) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let results = object["results"] as? [[String: Any]]
        else { return ["<unreadable: \(body.prefix(200))>"] }
        return results.compactMap { $0["name"] as? String }
    }
}
