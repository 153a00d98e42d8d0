import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging

/// The composition root's API over a real SQLite file in a temporary directory, with a
/// configuration the test adjusts and every log line captured in memory.
struct OperationsHarness {
    static let adminSecret = "s3cr3t-admin-token-0123456789"

    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let config: FrostboxSettings
    let logs = RecordingLogHandler.Store()
    let components: FrostboxApplication.Components
    let api: FrostboxAPI

    init(_ configure: (inout FrostboxSettings) -> Void = { _ in }) throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-ops")
        let directory = temporary.url
        var config = FrostboxSettings()
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        // A whole test run shares two cores with suites that keep the CPU busy on purpose: a
        // handful of sequential database reads can then take longer than the production 15 s
        // deadline. These routes are not about the deadline (RequestDeadline's own tests are).
        config.requestTimeout = .seconds(120)
        configure(&config)
        self.config = config
        components = try FrostboxApplication.Components(config: config, logger: logs.logger(label: "frostbox"))
        api = FrostboxApplication.makeAPI(components)
    }

    /// Runs `body` against the router (no socket), or `.live` over loopback (a real peer address).
    func test(_ mode: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(
            router: api.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logs.logger(label: "frostbox.http"))
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.test(mode, body)
    }

    /// The metrics page as text.
    var metricsText: String { String(decoding: components.operations.telemetry.render(), as: UTF8.self) }
}

extension TestClientProtocol {
    /// A request with optional JSON body and extra headers.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, headers extra: HTTPFields) async throws -> TestResponse {
        var headers = extra
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

/// `Authorization: Bearer <token>`.
func bearer(_ token: String) -> HTTPFields {
    var headers = HTTPFields()
    headers[.authorization] = "Bearer \(token)"
    return headers
}
