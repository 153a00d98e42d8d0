import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The web push migration (issue #46): the device table is copied with a CHECK that knows
/// browsers; devices keep their ids and everything that refers to them, and the triggers that
/// name the table still fire.
@Suite("Web push migration (SQLite)")
struct WebPushMigrationTests {
    static let alice = "a11ce000000000000000000000000001"
    static let browser = "web:AAECAwQFBgcICQoLDA0ODw"

    @Test("devices keep ids, facts and subscriptions; a browser needs its subscription; the departure and deletion triggers still work")
    func migrates() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.databasePath)
        try FrostboxMigrations.migrator(before: "v21-web-push").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, token, platform, app, locale, created_at, registered_at, quiet_start, quiet_end, verified_at)
                        VALUES (17, '\(Self.alice)', 'ios', 'fi.example.app', 'fi-FI', 1, 2, 1320, 420, 3);
                    INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at)
                        VALUES ('\(Self.alice)', 60.17, 24.94, 1, 'Home', 'C', 1);
                    """)
        }
        try FrostboxMigrations.migrator.migrate(queue)
        try queue.write { db in
            let row = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT id, platform, app, locale, quiet_start, quiet_end, verified_at FROM device WHERE token = ?",
                    arguments: [Self.alice]))
            #expect(row["id"] as Int64 == 17 && row["platform"] as String == "ios" && row["app"] as String? == "fi.example.app")
            #expect(row["locale"] as String? == "fi-FI" && row["quiet_start"] as Int64? == 1320 && row["verified_at"] as Int64? == 3)

            // The departure trigger (on subscription, naming device) still records an unsubscribe.
            try db.execute(sql: "DELETE FROM subscription WHERE token = ?", arguments: [Self.alice])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_departed WHERE device_id = 17") == 1)
            // The deletion trigger clears it with the device.
            try db.execute(sql: "DELETE FROM device WHERE token = ?", arguments: [Self.alice])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_departed") == 0)

            let endpoint = "'https://fcm.googleapis.com/fcm/send/x'"
            let keys = "'\(String(repeating: "B", count: 87))', '\(String(repeating: "A", count: 22))'"
            try db.execute(
                sql: """
                    INSERT INTO device (token, platform, created_at, registered_at, web_endpoint, web_p256dh, web_auth)
                        VALUES ('\(Self.browser)', 'web', 4, 4, \(endpoint), \(keys))
                    """)
            for bad in [
                // A browser without its subscription, a browser id as Android, a subscription on an iOS device, the same endpoint twice.
                "('web:AAECAwQFBgcICQoLDA0OAA', 'web', 5, 5, NULL, NULL, NULL)", "('web:AAECAwQFBgcICQoLDA0OAB', 'android', 5, 5, NULL, NULL, NULL)",
                "('\(String(repeating: "ab", count: 8))', 'ios', 5, 5, 'https://fcm.googleapis.com/y', \(keys))",
                "('web:AAECAwQFBgcICQoLDA0OAC', 'web', 5, 5, \(endpoint), \(keys))",
                "('web:AAECAwQFBgcICQoLDA0OAD', 'web', 5, 5, 'http://fcm.googleapis.com/z', \(keys))",
            ] {
                #expect(throws: DatabaseError.self, "\(bad)") {
                    try db.execute(
                        sql: "INSERT INTO device (token, platform, created_at, registered_at, web_endpoint, web_p256dh, web_auth) VALUES \(bad)")
                }
            }
        }
    }
}
