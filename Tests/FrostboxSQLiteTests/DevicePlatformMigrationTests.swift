import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// The platform migration: devices before it are iOS, keep their ids (subscriptions and the
/// outbox refer to them), and the token CHECK becomes the platform's.
@Suite("Device platform migration (SQLite)")
struct DevicePlatformMigrationTests {
    static let alice = "a11ce000000000000000000000000001"

    @Test("existing devices become ios with their ids; the token check follows the platform; devices are counted by platform")
    func migrates() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.databasePath)
        try FrostboxMigrations.migrator(before: "v9-device-platform").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, token, topic, created_at, registered_at) VALUES (17, '\(Self.alice)', 'fi.example.app', 1, 1);
                    INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at)
                        VALUES ('\(Self.alice)', 60.17, 24.94, 1, 'Home', 'C', 1);
                    """)
        }
        try FrostboxMigrations.migrator.migrate(queue)
        try queue.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT id, platform, app FROM device WHERE token = ?", arguments: [Self.alice]))
            #expect(row["id"] as Int64 == 17)
            #expect(row["platform"] as String == "ios")
            #expect(row["app"] as String? == "fi.example.app")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription WHERE token = ?", arguments: [Self.alice]) == 1)
        }
        try queue.write { db in
            try db.execute(sql: "INSERT INTO device (token, platform, created_at, registered_at) VALUES ('fJ3k:APA91b_x-1', 'android', 2, 2)")
            let counts = try FrostboxDatabase.statistics(db)
            #expect(counts.devicesByPlatform == ["ios": 1, "android": 1])
            #expect(counts.devices == 2)
            // An FCM token is no iOS token, a hex token with a space no Android one, and there is no third platform.
            for bad in [
                "('fJ3k:APA91b_x-2', 'ios', 2, 2)", "('fJ3k APA91b', 'android', 2, 2)", "('\(String(repeating: "ab", count: 8))', 'windows', 2, 2)",
            ] {
                #expect(throws: DatabaseError.self, "\(bad)") {
                    try db.execute(sql: "INSERT INTO device (token, platform, created_at, registered_at) VALUES \(bad)")
                }
            }
        }
    }
}
