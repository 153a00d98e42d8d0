import FrostboxCore
import PostgresNIO

/// The push budget on PostgreSQL: one row per key and window (`push_budget`), so that every
/// instance of a cluster takes from the same budget. A take is one transaction that locks its
/// row: the instances' takes of one window are decided one after another, and never grant more
/// than the window's limit between them. Rows older than an hour are dropped as windows begin.
public struct PostgresPushBudget: PushBudgetStore {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func take(key: String, window: Int64, count: Int, limit: Int) async throws -> Int {
        guard count > 0, limit > 0 else { return 0 }
        let logger = database.logger
        return try await database.transaction { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO push_budget (key, window_start, used) VALUES (\(key), \(window), 0)
                ON CONFLICT (key, window_start) DO NOTHING RETURNING window_start
                """, logger: logger)
            var first = false
            for try await _ in inserted.decode(Int64.self) { first = true }
            if first {
                // The first take of a window sweeps the old ones (of every key).
                try await connection.query("DELETE FROM push_budget WHERE window_start < \(window - 3_600)", logger: logger)
            }
            let rows = try await connection.query(
                "SELECT used FROM push_budget WHERE key = \(key) AND window_start = \(window) FOR UPDATE", logger: logger)
            var used = 0
            for try await value in rows.decode(Int.self) { used = value }
            let granted = max(0, min(count, limit - used))
            if granted > 0 {
                try await connection.query(
                    "UPDATE push_budget SET used = used + \(granted) WHERE key = \(key) AND window_start = \(window)", logger: logger)
            }
            return granted
        }
    }
}
