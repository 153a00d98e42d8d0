import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The fan-out outbox migration moves every row of the previous outbox (pending ones above
/// all) with its id, apns-id, exact payload and alerted mark.
@Suite("Outbox migration to the fan-out layout")
struct OutboxMigrationTests {
    static let alice = "a11ce000000000000000000000000001"
    static let bob = "b0b00000000000000000000000000002"

    /// A database at the schema just before the fan-out outbox, with a pending entry, a
    /// delivered one and a failed one, and their alerted marks.
    func previousSchema(at path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try FrostboxMigrations.migrator(before: "v7-outbox-fan-out").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (token, created_at, registered_at) VALUES ('\(Self.alice)', 1, 1), ('\(Self.bob)', 1, 1);
                    INSERT INTO notify_run (id, started_at, finished_at, status) VALUES (3, 10, 20, 'completed');
                    INSERT INTO outbox (id, token, box, night, level, kind, apns_id, collapse_id, topic, environment, push_type, priority,
                                        expiration, payload, status, attempts, created_at, run_id, last_attempt_at, delivered_at,
                                        delivered_apns_id, failure_class, failure_reason)
                    VALUES
                      (41, '\(Self.alice)', 7, '2026-05-12', 2, 'frost', '11111111-2222-4333-8444-555555555555', 'frost-7', 'fi.example.app', 'sandbox',
                       'alert', 10, 5000, '{"aps":{"alert":{"body":"Home: low −2 °C","title":"Freeze tonight"}},"frost":{"box":"7","level":"freeze","night":"2026-05-12"}}',
                       'pending', 2, 100, 3, 150, NULL, NULL, 'temporary', '503 ServiceUnavailable'),
                      (42, '\(Self.bob)', 7, '2026-05-12', 2, 'frost', '11111111-2222-4333-8444-666666666666', 'frost-7', 'fi.example.app', NULL,
                       'alert', 10, 5000, '{"aps":{"alert":{"body":"Cabin: low −2 °C","title":"Freeze tonight"}}}',
                       'delivered', 1, 100, 3, 150, 150, '11111111-2222-4333-8444-666666666666', NULL, NULL),
                      (43, '\(Self.bob)', 7, '2026-05-13', 3, 'escalation', '11111111-2222-4333-8444-777777777777', NULL, NULL, NULL,
                       'alert', 10, NULL, '{"aps":{}}', 'failed', 1, 100, NULL, 150, NULL, NULL, 'permanent', '400 BadTopic');
                    INSERT INTO alerted_event (token, box, night, level, kind, alerted_at, expires_at) VALUES
                      ('\(Self.alice)', 7, '2026-05-12', 2, 'frost', 100, 5000),
                      ('\(Self.bob)', 7, '2026-05-12', 2, 'frost', 100, 5000),
                      ('\(Self.bob)', 7, '2026-05-13', 3, 'escalation', 100, 6000);
                    """)
        }
        return queue
    }

    @Test("pending entries keep id, apns-id, attempts and exact payload; finished ones keep their outcome; nothing is lost")
    func movesEveryRow() async throws {
        let directory = try TemporaryDirectory()
        let queue = try previousSchema(at: directory.databasePath)
        let oldPayload = try await queue.read { db in try String.fetchOne(db, sql: "SELECT payload FROM outbox WHERE id = 41") }
        try queue.close()
        let database = try FrostboxDatabase(path: directory.databasePath)
        let store = GRDBNotifierStore(database: database)

        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.map(\.id) == [41])
        let entry = try #require(pending.first)
        #expect(entry.notification.messageID == "11111111-2222-4333-8444-555555555555")
        #expect(entry.notification.collapseID == "frost-7")
        #expect(entry.notification.app == "fi.example.app")
        #expect(entry.notification.environment == .sandbox)
        #expect(entry.notification.expiration == 5000)
        #expect(entry.attempts == 2)
        #expect(entry.event.night == LocalDate(year: 2026, month: 5, day: 12))
        #expect(entry.event.level == .freeze)
        // The payload bytes are the ones stored before the migration.
        let payload = try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT p.payload FROM outbox AS o JOIN outbox_push AS p ON p.id = o.push_id WHERE o.id = 41")
        }
        #expect(payload == oldPayload)

        let rows = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, status, run_id, delivered_message_id, failure_class, expires_at FROM outbox ORDER BY id")
        }
        #expect(rows.map { $0["id"] as Int64 } == [41, 42, 43])
        #expect(rows.map { $0["status"] as String } == ["pending", "delivered", "failed"])
        #expect(rows[0]["run_id"] as Int64? == 3)
        #expect(rows[1]["delivered_message_id"] as String? == "11111111-2222-4333-8444-666666666666")
        #expect(rows[2]["failure_class"] as String? == "permanent")
        // The alerted mark's window moved with the row.
        #expect(rows.map { $0["expires_at"] as Int64 } == [5000, 5000, 6000])
        #expect(try await database.pool.read { db in try db.foreignKeyViolations().isEmpty })

        // Every alerted mark is still there, so nothing is queued twice.
        let box = try #require(GeoBox(key: 7))
        let alerted = try await store.alertedEvents(in: [box], now: 0)[box] ?? []
        #expect(alerted.count == 3)
        // New entries continue after the old ids.
        _ = try await GRDBSubscriptionStore(database: database).register(DeviceRegistration(token: DeviceToken(trusted: Self.alice)), at: 2)
        let event = FrostEvent(box: box, night: LocalDate(year: 2026, month: 5, day: 14), level: .freeze)
        let token = DeviceToken(trusted: Self.alice)
        let fresh = OutboxEntry(
            event: event, kind: .frost,
            notification: PushNotification(token: token, messageID: event.messageID(for: token), content: AlertContent()),
            createdAt: 200)
        #expect(try await store.enqueue([fresh], runID: nil).map(\.id) == [44])
    }
}
