import FrostboxDoubles
import FrostboxApp
import FrostboxCore
import FrostboxHTTP
import FrostboxSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A router-level test harness: the real API over a real SQLite file in a temporary
/// directory, driven without a socket.
struct RouteTestHarness {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let components: FrostboxApplication.Components
    let api: FrostboxAPI

    init() throws {
        temporary = try TemporaryDirectory(prefix: "frostbox-routes")
        let directory = temporary.url
        var config = FrostboxConfig()
        config.databasePath = directory.appendingPathComponent("frostbox.sqlite").path
        config.maximumSubscriptionsPerDevice = 5
        components = try FrostboxApplication.Components(config: config, logger: Logger(label: "test"))
        api = FrostboxApplication.makeAPI(components)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` against the router.
    func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: api.makeRouter(), logger: Logger(label: "test"))
        try await app.test(.router, body)
        remove()
    }

    /// Count rows of a table, to check that refused requests changed nothing.
    func count(_ table: String) async throws -> Int {
        try await components.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }
}

extension TestClientProtocol {
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The decoded JSON body as a dictionary.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// The `error.code` of a JSON error body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}
