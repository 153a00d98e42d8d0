import AsyncHTTPClient
import Foundation
import FrostboxCore
import FrostboxSQLite
import NIOCore
import Testing

@Suite("Durability of acknowledged writes across kill -9", .serialized)
struct DurabilityTests {
    @Test("every acknowledged add_location survives kill -9 of the server, and a restart serves it")
    func killNineLosesNothingAcknowledged() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbPath = directory.appendingPathComponent("frostbox.sqlite").path
        let arguments = ["serve", "--port", "0", "--db", dbPath]
        // One test client on loopback is one rate-limit client: lift the limit so every
        // request reaches the store.
        let environment = ["FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0"]

        let server = try ServerProcess(arguments: arguments, directory: directory, environment: environment)
        try await server.start()
        let client = HTTPClient.shared

        // Fire requests concurrently; kill the server while some are still in flight.
        let total = 400
        let acknowledged = AcknowledgedTokens()
        let port = server.port
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<total {
                group.addTask {
                    let token = String(format: "%032x", i + 1)
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/add_location")
                    request.method = .POST
                    request.body = .bytes(
                        ByteBuffer(string: #"{"token": "\#(token)", "location": {"latitude": "60.17", "longitude": "24.94", "name": "Helsinki"}}"#))
                    if let response = try? await client.execute(request, timeout: .seconds(60)), response.status == .created {
                        _ = try? await response.body.collect(upTo: 1 << 16)
                        await acknowledged.add(token)
                    }
                }
            }
            // Kill once a quarter is acknowledged (on a loaded machine, after at most 60 s):
            // what matters is that requests are in flight when the process dies.
            let deadline = ContinuousClock.now + .seconds(60)
            while await acknowledged.count < total / 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            server.kill9()
            // Requests still queued can only fail now; do not wait for their deadlines.
            group.cancelAll()
            try await group.waitForAll()
        }
        let acked = await acknowledged.tokens
        try #require(!acked.isEmpty, "no write was acknowledged before the kill")

        // Straight from the file, as the restarted server will see it.
        let stored = try await FrostboxDatabase(path: dbPath).pool.read { db in
            try Set(String.fetchAll(db, sql: "SELECT token FROM subscription"))
        }
        let lost = acked.subtracting(stored)
        #expect(lost.isEmpty, "lost \(lost.count) acknowledged writes")

        // A restarted server answers for an acknowledged device.
        let restarted = try ServerProcess(arguments: arguments, directory: directory, environment: environment)
        try await restarted.start()
        defer { restarted.stop() }
        let sample = try #require(acked.first)
        let response = try await client.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(restarted.port)/v1/devices/\(sample)/subscriptions"), timeout: .seconds(20))
        #expect(response.status == .ok)
        let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
        #expect(body.contains("\"Helsinki\""))
    }
}

/// Tokens whose write the server acknowledged.
actor AcknowledgedTokens {
    private(set) var tokens = Set<String>()
    var count: Int { tokens.count }
    func add(_ token: String) { tokens.insert(token) }
}
