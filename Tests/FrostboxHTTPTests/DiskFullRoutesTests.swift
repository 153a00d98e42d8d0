import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import FrostboxSQLite
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A full SQLite file as the client and the load balancer see it: writes answer 503
/// `storage_unavailable` with `Retry-After`, `/ready` answers 503 until the file takes writes
/// again, then 200, with no restart; no log line per request.
@Suite("Disk full over HTTP (SQLite)")
struct DiskFullRoutesTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// Lets the writer connection grow the file by nothing more (true) or without limit (false).
    static func full(_ database: FrostboxDatabase, _ full: Bool) async throws {
        try await database.pool.writeWithoutTransaction { db in
            let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(full ? count : 1_073_741_823)")
        }
    }

    @Test("writes on a full disk answer 503 storage_unavailable with Retry-After; /ready flips to 503 and back to 200 when there is room; writes work again")
    func fullDisk() async throws {
        let directory = try TemporaryDirectory()
        let logs = RecordingLogHandler.Store()
        let database = try FrostboxDatabase(path: directory.databasePath, logger: logs.logger(label: "sqlite", level: .info))
        database.health.diskFullHold = .zero
        let store = GRDBSubscriptionStore(database: database, maximumSubscriptionsPerDevice: 10)
        let api = FrostboxAPI(
            groups: FrostboxApplication.publicRoutes(
                subscriptions: store, places: InMemoryPlaceIndex([]), clock: { 1_700_000_000 }, ready: { await database.isReady() }))
        let app = Application(router: api.makeRouter(), logger: logs.logger(label: "http", level: .info))
        try await app.test(.router) { client in
            #expect(try await client.send(.get, "/ready").status == .ok)
            try await Self.full(database, true)
            var refused = 0
            var n = 0
            // Devices with rising tokens until the last page is full; then every write is refused.
            while refused < 3, n < 20_000 {
                let answer = try await client.send(.put, "/v1/devices/\(Self.token(n))")
                n += 1
                guard answer.status != .created, answer.status != .ok else { continue }
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.errorCode == "storage_unavailable")
                #expect(answer.headers[.retryAfter] == "5")
                refused += 1
            }
            #expect(refused == 3)
            #expect(try await client.send(.get, "/ready").status == .serviceUnavailable)
            #expect(try await client.send(.get, "/v1/devices/\(Self.token(0))").status == .ok, "reads go on")

            try await Self.full(database, false)
            #expect(try await client.send(.get, "/ready").status == .ok)
            #expect(try await client.send(.put, "/v1/devices/\(Self.token(n))").status == .created)
        }
        #expect(!logs.all.contains { $0.message == "unhandled error" })
        let states = logs.all.filter { $0.label == "sqlite" && $0.level >= .notice }.map(\.message)
        #expect(states == ["SQLite database refuses writes", "SQLite database takes writes again"], "\(states)")
    }
}
