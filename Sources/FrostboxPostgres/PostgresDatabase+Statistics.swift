import PostgresNIO

extension PostgresDatabase {
    /// Row counts for `/admin/stats`: devices (by platform), subscriptions, distinct boxes, cached
    /// forecasts, and pending outbox entries by the class of their last failed send
    /// (`not-sent-yet` when none).
    public func statistics() async throws -> (
        devices: Int, devicesByPlatform: [String: Int], subscriptions: Int, boxes: Int, forecastsCached: Int, outboxPendingByClass: [String: Int]
    ) {
        let counts = try await query(
            """
            SELECT (SELECT count(*) FROM device), (SELECT count(*) FROM subscription),
                   (SELECT count(DISTINCT box) FROM subscription), (SELECT count(*) FROM forecast_cache)
            """)
        var devices = 0, subscriptions = 0, boxes = 0, cached = 0
        for try await (d, s, b, c) in counts.decode((Int64, Int64, Int64, Int64).self) {
            (devices, subscriptions, boxes, cached) = (Int(d), Int(s), Int(b), Int(c))
        }
        var byPlatform: [String: Int] = [:]
        for try await (platform, count) in try await query("SELECT platform, count(*) FROM device GROUP BY 1").decode((String, Int64).self) {
            byPlatform[platform] = Int(count)
        }
        return (devices, byPlatform, subscriptions, boxes, cached, try await outboxPendingByClass())
    }

    /// Alerts waiting in the outbox (the report's queue length).
    public func outboxPending() async throws -> Int {
        try await query("SELECT count(*) FROM outbox WHERE status = 'pending'").single(Int64.self).map(Int.init) ?? 0
    }

    func outboxPendingByClass() async throws -> [String: Int] {
        let rows = try await query(
            """
            SELECT CASE WHEN failure_class IS NULL AND not_before IS NOT NULL THEN 'quiet-hours' ELSE COALESCE(failure_class, 'not-sent-yet') END,
                   count(*)
            FROM outbox WHERE status = 'pending' GROUP BY 1
            """)
        var result: [String: Int] = [:]
        for try await (failure, count) in rows.decode((String, Int64).self) { result[failure] = Int(count) }
        return result
    }
}
