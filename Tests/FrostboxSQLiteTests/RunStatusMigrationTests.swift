import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The runs table takes the `degraded` status, and the migration that allows it keeps the
/// runs (and the outbox's links to them) stored before it.
@Suite("Notify run status in SQLite")
struct RunStatusMigrationTests {
    @Test("a degraded run is stored and read back as degraded")
    func degradedRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let store = GRDBNotifierStore(database: try FrostboxDatabase(path: directory.databasePath))
        let id = try await store.startRun(at: 1_000)
        var summary = NotifyRunSummary(id: id, startedAt: 1_000)
        summary.boxes = 2
        summary.forecastsFetched = 1
        summary.boxesFailed = 1
        summary.status = summary.outcome
        summary.finishedAt = 1_002
        try await store.finishRun(summary)
        let stored = try #require(try await store.recentRuns(limit: 1).first)
        #expect(stored.status == .degraded)
        #expect(stored.boxesFailed == 1)
    }

    @Test("migrating a database of the previous schema keeps its runs, ids and outbox links")
    func migrationKeepsRuns() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.databasePath)
        try FrostboxMigrations.migrator(before: "v6-notify-run-degraded").migrate(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO device (token, created_at, registered_at) VALUES ('a11ce000000000000000000000000001', 1, 1)")
            try db.execute(
                sql:
                    "INSERT INTO notify_run (id, started_at, finished_at, status, boxes, error) VALUES (7, 10, 20, 'completed', 3, NULL), (8, 30, 40, 'failed', 1, 'boom')"
            )
            try db.execute(
                sql: """
                    INSERT INTO outbox (token, box, night, level, kind, apns_id, push_type, priority, payload, created_at, run_id)
                    VALUES ('a11ce000000000000000000000000001', 1, '2026-05-12', 2, 'frost', '00000000-0000-4000-8000-000000000001',
                            'alert', 10, '{}', 11, 7)
                    """)
        }
        try FrostboxMigrations.migrator.migrate(queue)
        try queue.read { db in
            let runs = try Row.fetchAll(db, sql: "SELECT id, status, boxes, error FROM notify_run ORDER BY id")
            #expect(runs.map { $0["id"] as Int64 } == [7, 8])
            #expect(runs.map { $0["status"] as String } == ["completed", "failed"])
            #expect(runs.last?["error"] as String? == "boom")
            #expect(try Int64.fetchOne(db, sql: "SELECT run_id FROM outbox") == 7)
            #expect(try db.foreignKeyViolations().isEmpty)
        }
        try queue.write { db in
            try db.execute(sql: "INSERT INTO notify_run (started_at, finished_at, status) VALUES (50, 60, 'degraded')")
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO notify_run (started_at, finished_at, status) VALUES (50, 60, 'so-so')")
            }
            #expect(try Int64.fetchOne(db, sql: "SELECT max(id) FROM notify_run") == 9)
        }
    }
}
