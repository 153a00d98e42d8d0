import Foundation
import FrostboxCore
import TestPostgres
import Testing

@testable import FrostboxPostgres

extension OutboxByBoxTests {
    @Test("the migration keeps every row with its id, records the boxes a device had already left, and its delete reaches them")
    func migrationKeepsRows() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let name = try await cluster.createDatabaseOffThePool(prefix: "bybox-migration")
        // The schema as the release before p14 left it, with two rows of one device, one in a
        // box it no longer subscribes to.
        let before = PostgresMigrations.all.prefix { $0.name != "p14-outbox-by-box" }
        let schema =
            "CREATE TABLE schema_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());\n"
            + before.map { migration in
                migration.sql.joined(separator: ";\n") + ";\nINSERT INTO schema_migration (name) VALUES ('\(migration.name)');\n"
            }.joined()
        let rows = """
            INSERT INTO device (token, created_at, registered_at) VALUES ('\(alice.value)', 1, 1);
            INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at)
                VALUES ('\(alice.value)', 60.17, 24.94, \(home.box.key), 'Home', 'C', 1);
            INSERT INTO outbox_push (id, push_type, priority, payload) VALUES (1, 'alert', 10, '{}');
            INSERT INTO outbox (id, device_id, box, night, level, kind, push_id, created_at, expires_at)
                SELECT v.id, d.id, v.box, 20260512, 2, 'frost', 1, 1, 100
                FROM device AS d, (VALUES (41, \(home.box.key)), (42, \(away.box.key))) AS v(id, box);
            """
        _ = try await TestPostgresCluster.offThePool { try cluster.psql(schema + rows, database: name) }

        let settings = PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable)
        _ = try await PostgresDatabase.openedInTestScope(settings: settings, maximumConnections: 2)
        let query = { (sql: String) in try await TestPostgresCluster.offThePool { try cluster.psql(sql, database: name) } }
        #expect(try await query("SELECT id FROM outbox ORDER BY id") == [["41"], ["42"]])
        #expect(try await query("SELECT box FROM outbox_departed") == [[String(away.box.key)]])
        _ = try await query("DELETE FROM device RETURNING id")
        #expect(try await query("SELECT count(*) FROM outbox") == [["0"]])
        #expect(try await query("SELECT count(*) FROM outbox_departed") == [["0"]])
    }
}
