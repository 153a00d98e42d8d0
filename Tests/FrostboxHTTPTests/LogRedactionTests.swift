import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MockOpenMeteo
import Testing

@Suite("Secrets stay out of logs")
struct LogRedactionTests {
    static let tokens = [
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
    ]
    static let secret = OperationsHarness.adminSecret

    /// Every line, message and metadata, lower-cased.
    static func lines(_ store: RecordingLogHandler.Store) -> [String] {
        store.all.map { $0.description.lowercased() }
    }

    @Test("a full run of every device and admin route logs no whole token and no admin secret")
    func routesRun() async throws {
        let harness = try OperationsHarness { $0.adminToken = AdminToken(Self.secret) }
        try await harness.test { client in
            for token in Self.tokens {
                let location = #"{"token": "\#(token)", "location": {"latitude": 60.17, "longitude": 24.94, "name": "Home"}}"#
                try await client.send(.post, "/register", json: #"{"token": "\#(token.uppercased())"}"#)
                try await client.send(.post, "/add_location", json: location)
                try await client.send(.post, "/remove_location", json: location)
                try await client.send(.put, "/v1/devices/\(token)", json: #"{"topic": "fi.example.frost", "environment": "sandbox"}"#)
                try await client.send(.post, "/v1/devices/\(token)/subscriptions", json: #"{"latitude": 1, "longitude": 2, "name": "Cabin"}"#)
                try await client.send(.get, "/v1/devices/\(token)/subscriptions")
                try await client.send(.delete, "/v1/devices/\(token)/subscriptions/1")
                try await client.send(.patch, "/v1/devices/\(token)")
                try await client.send(.get, "/admin/stats", headers: bearer(Self.secret))
                try await client.send(.get, "/admin/stats", headers: bearer(Self.secret.dropLast() + "X"))
                try await client.send(.post, "/admin/push-test", json: #"{"token": "\#(token)"}"#, headers: bearer(Self.secret))
                try await client.send(.post, "/admin/notify", headers: bearer(Self.secret))
                try await client.send(.delete, "/v1/devices/\(token)")
                try await client.send(.delete, "/v1/devices/\(token)")
            }
        }
        let lines = Self.lines(harness.logs)
        #expect(lines.count > 10, "the run should have logged something to check")
        #expect(lines.contains { $0.contains("012345…cdef") }, "tokens appear in their redacted form")
        for line in lines {
            for token in Self.tokens {
                #expect(!line.contains(token), "\(line)")
                // Not even a long fragment of it.
                #expect(!line.contains(String(token.prefix(20))), "\(line)")
            }
            #expect(!line.contains(Self.secret.lowercased()), "\(line)")
        }
    }

    @Test("a whole notify run (forecasts from the mock Open-Meteo, pushes to the sink) logs no whole token")
    func notifyRun() async throws {
        let mock = MockOpenMeteo(
            scenario: MockScenario(frost: [FrostSpot(latitude: 60.17, longitude: 24.94, minimumC: -6)]),
            logger: Logger(label: "mock", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await mock.withRunning { baseURL in
            let harness = try OperationsHarness {
                $0.adminToken = AdminToken(Self.secret)
                $0.forecasts.baseURL = baseURL
                $0.forecasts.apiKey = "om-secret-key-0123456789"
            }
            try await harness.test { client in
                for token in Self.tokens {
                    try await client.send(.post, "/v1/devices/\(token)/subscriptions", json: #"{"latitude": 60.17, "longitude": 24.94, "name": "Home"}"#)
                }
                let started = try await client.send(.post, "/admin/notify", headers: bearer(Self.secret))
                #expect(started.status == .accepted)
                let summary = await harness.components.notifier.notifier.triggeredRun()
                #expect(summary?.alertsDelivered ?? 0 >= Self.tokens.count, "\(summary.map { "\($0)" } ?? "no run")")
            }
            let lines = Self.lines(harness.logs)
            #expect(lines.contains { $0.contains("fedcba…3210") }, "the pushes were logged, redacted")
            for line in lines {
                for token in Self.tokens { #expect(!line.contains(token), "\(line)") }
                #expect(!line.contains(Self.secret.lowercased()), "\(line)")
                #expect(!line.contains("om-secret-key"), "\(line)")
            }
        }
    }

    @Test("an unexpected error on a route with a token in its path is logged by route pattern, not path")
    func unhandledErrorPath() async throws {
        struct Boom: Error {}
        let logs = RecordingLogHandler.Store()
        let api = FrostboxAPI(groups: [
            { routes in
                routes.on(.get, "/v1/devices/{token}/boom") { _, _ -> HTTPResponse.Status in throw Boom() }
            }
        ])
        let token = Self.tokens[0]
        try await Application(router: api.makeRouter(), logger: logs.logger(label: "http")).test(.router) { client in
            let response = try await client.send(.get, "/v1/devices/\(token)/boom")
            #expect(response.status == .internalServerError)
            #expect(response.errorCode == "internal_error")
        }
        let line = try #require(logs.all.first { $0.message == "unhandled error" })
        #expect(line.metadata["route"] == "/v1/devices/{token}/boom")
        #expect(!logs.all.contains { $0.description.contains(token) })
    }

    @Test("a key file readable by others gets one warning naming the path, never the contents")
    func keyFilePermissions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----\n"
        let path = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8").path
        try key.write(toFile: path, atomically: true, encoding: .utf8)

        for (mode, warns) in [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let logs = RecordingLogHandler.Store()
            let read = try SecretFile.readText(path, logger: logs.logger())
            #expect(read == key.trimmingCharacters(in: .whitespacesAndNewlines))
            let warnings = logs.all.filter { $0.level == .warning }
            #expect(warnings.count == (warns ? 1 : 0), "mode \(String(mode, radix: 8))")
            if warns { #expect(warnings.first?.metadata["path"] == "\(path)") }
            for line in logs.all.map(\.description) {
                #expect(!line.contains("MIGTAgEAMBMG"))
                #expect(!line.contains("PRIVATE KEY"))
            }
        }
        // Read again (the push components after the configuration reader): warned once a process, not twice.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let again = RecordingLogHandler.Store()
        _ = try SecretFile.read(path, logger: again.logger())
        SecretFile.warnIfOpen(path, logger: again.logger())
        #expect(again.all.filter { $0.level == .warning }.isEmpty)
        #expect(throws: SecretFile.ReadError.self) { try SecretFile.read(directory.appendingPathComponent("missing.p8").path, logger: Logger(label: "t")) }
        #expect(throws: SecretFile.ReadError.self) { try SecretFile.read(directory.path, logger: Logger(label: "t")) }
    }
}
