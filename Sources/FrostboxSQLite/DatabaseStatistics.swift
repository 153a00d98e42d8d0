import GRDB

/// Counts for the operator (`GET /admin/stats`, the report line), read in one snapshot.
/// Tables that belong to parts not installed in this database count as zero.
public struct DatabaseStatistics: Sendable, Equatable {
    public var devices = 0
    /// Devices by platform (`ios`, `android`); a platform with none is absent.
    public var devicesByPlatform: [String: Int] = [:]
    public var subscriptions = 0
    /// Distinct forecast boxes with at least one subscription.
    public var boxes = 0
    /// Places stored: counted in the places file (`PlacesDatabase.placeCount()`), 0 here.
    public var places = 0
    /// Boxes with a cached forecast (the cache's size; boxes nobody subscribes to any more
    /// are purged at the end of each notify run).
    public var forecastsCached = 0
    /// Alerts waiting in the outbox to be sent, by why they wait: the class of their last
    /// failed send (`temporary`, `auth`), or `not-sent-yet`.
    public var outboxPendingByClass: [String: Int] = [:]

    /// Alerts waiting in the outbox to be sent.
    public var outboxPending: Int { outboxPendingByClass.values.reduce(0, +) }

    /// The class of pending entries held for their device's quiet hours (never sent yet).
    public static let heldClass = "quiet-hours"

    public init(
        devices: Int = 0, devicesByPlatform: [String: Int] = [:], subscriptions: Int = 0, boxes: Int = 0, places: Int = 0, forecastsCached: Int = 0,
        outboxPendingByClass: [String: Int] = [:]
    ) {
        self.devices = devices
        self.devicesByPlatform = devicesByPlatform
        self.subscriptions = subscriptions
        self.boxes = boxes
        self.places = places
        self.forecastsCached = forecastsCached
        self.outboxPendingByClass = outboxPendingByClass
    }
}

extension FrostboxDatabase {
    /// Row counts of the main tables.
    public func statistics() async throws -> DatabaseStatistics {
        try await pool.read { db in try Self.statistics(db) }
    }

    /// Alerts waiting in the outbox (the report's queue length).
    public func outboxPending() async throws -> Int {
        try await pool.read { db in
            try db.tableExists("outbox") ? Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE status = 'pending'") ?? 0 : 0
        }
    }

    static func statistics(_ db: Database) throws -> DatabaseStatistics {
        func count(_ sql: String, table: String) throws -> Int {
            guard try db.tableExists(table) else { return 0 }
            return try Int.fetchOne(db, sql: sql) ?? 0
        }
        var byPlatform: [String: Int] = [:]
        if try db.tableExists("device") {
            let rows = try Row.fetchCursor(db, sql: "SELECT platform, count(*) FROM device GROUP BY 1")
            while let row = try rows.next() { byPlatform[row[0]] = row[1] }
        }
        return DatabaseStatistics(
            devices: byPlatform.values.reduce(0, +), devicesByPlatform: byPlatform,
            subscriptions: try count("SELECT count(*) FROM subscription", table: "subscription"),
            boxes: try count("SELECT count(DISTINCT box) FROM subscription", table: "subscription"),
            forecastsCached: try count("SELECT count(*) FROM forecast_cache", table: "forecast_cache"),
            outboxPendingByClass: try outboxPendingByClass(db))
    }

    static func outboxPendingByClass(_ db: Database) throws -> [String: Int] {
        guard try db.tableExists("outbox") else { return [:] }
        var result: [String: Int] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT CASE WHEN failure_class IS NULL AND not_before IS NOT NULL THEN 'quiet-hours' ELSE coalesce(failure_class, 'not-sent-yet') END,
                       count(*)
                FROM outbox WHERE status = 'pending' GROUP BY 1
                """)
        while let row = try rows.next() { result[row[0]] = row[1] }
        return result
    }
}
