import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The delivery-window migration: subscriptions before it have no window, and the schema
/// refuses a window the core would not build.
@Suite("Notify windows migration (SQLite)")
struct NotifyWindowsMigrationTests {
    static let alice = "a11ce000000000000000000000000001"

    @Test("existing subscriptions get no window; equal bounds, out-of-range minutes and notify_before 00:00 alone are refused")
    func migrates() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.databasePath)
        try FrostboxMigrations.migrator(before: "v15-notify-windows").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (token, created_at, registered_at) VALUES ('\(Self.alice)', 1, 1);
                    INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at)
                        VALUES ('\(Self.alice)', 60.17, 24.94, 1, 'Home', 'C', 1);
                    """)
        }
        try FrostboxMigrations.migrator.migrate(queue)
        try queue.write { db in
            let record = try #require(try SubscriptionRecord.fetchOne(db))
            #expect(record.subscription.settings.window == nil)
            let insert = "INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at, notify_after, notify_before) VALUES"
            for good in ["(960, 480)", "(960, NULL)", "(NULL, 540)", "(0, NULL)"] {
                try db.execute(sql: "\(insert) ('\(Self.alice)', 60.17, 24.94, 1, 'Good \(good)', 'C', 1, \(good.dropFirst().dropLast()))")
            }
            for bad in ["(960, 960)", "(NULL, 0)", "(1440, NULL)", "(NULL, -1)", "(-5, 60)"] {
                #expect(throws: DatabaseError.self, "\(bad)") {
                    try db.execute(sql: "\(insert) ('\(Self.alice)', 60.17, 24.94, 1, 'Bad', 'C', 1, \(bad.dropFirst().dropLast()))")
                }
            }
            let windows = try SubscriptionRecord.order(SubscriptionRecord.Columns.id).fetchAll(db).map(\.subscription.settings.window?.description)
            #expect(windows == [nil, "16:00–08:00", "16:00–24:00", "00:00–09:00", "00:00–24:00"])
        }
    }
}
