import FrostboxCore
import GRDB

/// The `NotifierStore` on SQLite. Bulk reads and writes (fetch state, a chunk's outbox
/// entries, a batch of outcomes) use the pool directly, one transaction each, with statements
/// prepared once per transaction; pruning goes through the group committer. Every write is
/// durable (`synchronous = FULL`) when its method returns. The outbox layout is described
/// in `FrostboxMigrations.v7OutboxFanOut`.
public struct GRDBNotifierStore: NotifierStore {
    let database: FrostboxDatabase
    /// How many runs the runs table keeps.
    public let keptRuns: Int
    /// Devices must be proven real (`DeviceVerification`): boxes without a verified device
    /// are not asked for and pending devices get no alerts. False: every device counts.
    public let verifiedDevicesOnly: Bool

    public init(database: FrostboxDatabase, keptRuns: Int = 10_000, verifiedDevicesOnly: Bool = false) {
        self.database = database
        self.keptRuns = keptRuns
        self.verifiedDevicesOnly = verifiedDevicesOnly
    }

    public func boxesToNotify() async throws -> [GeoBox] {
        // Only boxes with a verified device, when that is required: one indexed probe per box,
        // which stops at its first verified subscriber.
        let verified =
            verifiedDevicesOnly
            ? """
            WHERE EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token
                          WHERE v.box = s.box AND d.verified_at IS NOT NULL)
            """ : ""
        return try await database.pool.read { db in
            // Failing boxes first (longest failing first), then never fetched, then oldest success.
            let keys = try Int64.fetchAll(
                db,
                sql: """
                    SELECT s.box FROM (SELECT DISTINCT box FROM subscription) AS s
                    LEFT JOIN box_fetch AS f ON f.box = s.box
                    \(verified)
                    ORDER BY CASE WHEN f.failing_since IS NOT NULL THEN 0 WHEN f.box IS NULL THEN 1 ELSE 2 END,
                             COALESCE(f.failing_since, f.last_success_at, 0), s.box
                    """)
            return keys.compactMap(GeoBox.init(key:))
        }
    }

    public func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] {
        guard !boxes.isEmpty else { return [:] }
        // Pending devices get no alerts when devices must be proven real.
        let verified = verifiedDevicesOnly ? "AND d.verified_at IS NOT NULL" : ""
        return try await database.pool.read { db in
            // One indexed lookup per box, read through the C API: a run reads every
            // subscription once, and building GRDB rows cost more than the lookups.
            let statement = try RawStatement(
                db,
                sql: """
                    SELECT s.id, s.token, s.name, s.unit, s.rule, s.frost_risk_c, s.freeze_c, s.hard_freeze_c,
                           s.all_clear, d.app, d.environment, d.platform, d.quiet_start, d.quiet_end, d.hard_freeze_breaks_quiet,
                           s.notify_after, s.notify_before, d.id, s.min_probability
                    FROM subscription AS s JOIN device AS d ON d.token = s.token
                    WHERE s.box = ? \(verified)
                    ORDER BY s.token, s.id
                    """)
            var result: [GeoBox: [SubscribedPlace]] = [:]
            result.reserveCapacity(boxes.count)
            for box in boxes {
                statement.bind(1, box.key)
                var places: [SubscribedPlace] = []
                while try statement.next() {
                    var place =
                        SubscribedPlace(
                            subscriptionID: statement.int64(0), token: DeviceToken(trusted: statement.text(1)),
                            name: statement.text(2), unit: TemperatureUnit(rawValue: statement.text(3)) ?? .celsius,
                            settings: AlertSettings(
                                rule: statement.optionalText(4), frostRiskC: statement.optionalDouble(5),
                                freezeC: statement.optionalDouble(6), hardFreezeC: statement.optionalDouble(7),
                                allClear: statement.int64(8) != 0,
                                window: Self.window(statement.optionalInt64(15), statement.optionalInt64(16)),
                                minProbability: statement.optionalDouble(18)),
                            platform: DevicePlatform(rawValue: statement.text(11)) ?? .ios, app: statement.optionalText(9),
                            environment: statement.optionalText(10).flatMap(PushEnvironment.init(rawValue:)),
                            quietHours: Self.quietHours(statement.optionalInt64(12), statement.optionalInt64(13)),
                            hardFreezeBreaksQuietHours: statement.int64(14) != 0)
                    place.deviceKey = statement.int64(17)
                    places.append(place)
                }
                if !places.isEmpty { result[box] = places }
            }
            return result
        }
    }

    public func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] {
        guard !boxes.isEmpty else { return [:] }
        let keys = boxes.map(\.key)
        return try await database.pool.read { db in
            var result: [GeoBox: [AlertedEvent]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT d.token, o.box, o.night, o.level, o.kind, o.attempts = 0 AND o.not_before IS NOT NULL
                    FROM outbox AS o JOIN device AS d ON d.id = o.device_id
                    WHERE o.box IN (\(Self.placeholders(keys.count))) AND o.expires_at > ?
                    """,
                arguments: StatementArguments(keys) + [now])
            while let row = try rows.next() {
                guard let box = GeoBox(key: row[1]), let night = LocalDate(compactNumber: row[2]),
                    let level = FrostLevel(rawValue: row[3]), let kind = AlertKind(rawValue: row[4])
                else { continue }
                result[box, default: []].append(
                    AlertedEvent(
                        token: DeviceToken(trusted: row[0]), event: FrostEvent(box: box, night: night, level: level), kind: kind,
                        neverSent: row[5]))
            }
            return result
        }
    }

    public func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws {
        guard !succeeded.isEmpty || !failed.isEmpty else { return }
        try await database.writeTransaction { db in
            let success = try db.cachedStatement(
                sql: """
                    INSERT INTO box_fetch (box, last_attempt_at, last_success_at, failing_since, failure)
                    VALUES (?, ?, ?, NULL, NULL)
                    ON CONFLICT (box) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                        last_success_at = excluded.last_success_at, failing_since = NULL, failure = NULL
                    """)
            for box in succeeded { try success.execute(arguments: [box.key, now, now]) }
            let failure = try db.cachedStatement(
                sql: """
                    INSERT INTO box_fetch (box, last_attempt_at, last_success_at, failing_since, failure)
                    VALUES (?, ?, NULL, ?, ?)
                    ON CONFLICT (box) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                        failing_since = COALESCE(box_fetch.failing_since, excluded.failing_since),
                        failure = excluded.failure
                    """)
            for (box, reason) in failed { try failure.execute(arguments: [box.key, now, now, reason]) }
        }
    }

    public func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] {
        guard !entries.isEmpty else { return [] }
        return try await database.writeTransaction { db in
            // One transaction: the rows are the queued pushes and the alerted marks at once.
            var writer = try OutboxWriter(db)
            var stored: [OutboxEntry] = []
            stored.reserveCapacity(entries.count)
            for var entry in entries {
                guard let id = try writer.insert(entry, runID: runID) else { continue }
                entry.id = id
                if try writer.endHeldBefore(entry) { stored.append(entry) }
            }
            return stored
        }
    }

    public func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        try await database.pool.read { db in
            try OutboxReader.pending(db, after: after, through: through ?? Int64.max, limit: limit, dueBy: dueBy)
        }
    }

    public func lastOutboxID() async throws -> Int64 {
        try await database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT max(id) FROM outbox") ?? 0
        }
    }

    public func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws {
        guard !outcomes.isEmpty else { return }
        try await database.writeTransaction { db in
            let delivered = try RawStatement(
                db,
                sql: """
                    UPDATE outbox SET status = 'delivered', attempts = attempts + 1, last_attempt_at = ?1,
                        delivered_at = ?1, delivered_message_id = ?2, failure_class = NULL, failure_reason = NULL
                    WHERE id = ?3 AND status = 'pending'
                    """)
            let failed = try RawStatement(
                db,
                sql: """
                    UPDATE outbox SET status = ?1, attempts = attempts + 1, last_attempt_at = ?2,
                        failure_class = ?3, failure_reason = ?4
                    WHERE id = ?5 AND status = 'pending'
                    """)
            for (id, outcome) in outcomes {
                switch outcome {
                case .delivered(let at, let messageID):
                    delivered.bind(1, at)
                    delivered.bind(2, messageID)
                    delivered.bind(3, id)
                    try delivered.execute()
                case .failed(let failure, let reason, let at):
                    failed.bind(1, failure.keepsEntryPending ? "pending" : "failed")
                    failed.bind(2, at)
                    failed.bind(3, failure.rawValue)
                    failed.bind(4, String(reason.prefix(500)))
                    failed.bind(5, id)
                    try failed.execute()
                }
            }
        }
    }

    public func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool {
        // Subscriptions go with the device (ON DELETE CASCADE), its outbox rows by the
        // trigger `outbox_of_deleted_device`.
        try await database.write { db in
            try db.execute(sql: "DELETE FROM device WHERE token = ? AND registered_at <= ?", arguments: [token.value, cutoff])
            return db.changesCount > 0
        }
    }

    public func startRun(at now: Int64) async throws -> Int64 {
        try await database.writeTransaction { db in
            try db.execute(
                sql: "UPDATE notify_run SET status = 'interrupted', finished_at = coalesce(finished_at, ?) WHERE status = 'running'",
                arguments: [now])
            var record = NotifyRunRecord(NotifyRunSummary(startedAt: now))
            try record.insert(db)
            // `didInsert` has set the id.
            return record.id ?? 0
        }
    }

    public func finishRun(_ summary: NotifyRunSummary) async throws {
        try await database.writeTransaction { db in
            try NotifyRunRecord(summary).update(db)
        }
    }

    public func recentRuns(limit: Int) async throws -> [NotifyRunSummary] {
        try await database.pool.read { db in
            try NotifyRunRecord.order(NotifyRunRecord.Columns.id.desc).limit(limit).fetchAll(db).map(\.summary)
        }
    }

    @discardableResult
    public func purge(before: Int64) async throws -> Int {
        let keptRuns = self.keptRuns
        return try await database.writeTransaction { db in
            var deleted = 0
            // A NULL expiration never compares below `before`: such entries are kept.
            try db.execute(
                sql: """
                    DELETE FROM outbox WHERE status != 'pending'
                        AND push_id IN (SELECT id FROM outbox_push WHERE expiration < ?)
                    """,
                arguments: [before])
            deleted += db.changesCount
            try db.execute(sql: "DELETE FROM outbox_push WHERE id NOT IN (SELECT push_id FROM outbox)")
            // A departed box is only needed while the device may still have rows there (one
            // planned before it left and written after it is written within the run).
            try db.execute(
                sql: """
                    DELETE FROM outbox_departed WHERE departed_at < unixepoch() - 86400
                        AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.box = outbox_departed.box
                                        AND o.device_id = outbox_departed.device_id)
                    """)
            try db.execute(sql: "DELETE FROM box_fetch WHERE box NOT IN (SELECT box FROM subscription)")
            deleted += db.changesCount
            try db.execute(
                sql: "DELETE FROM notify_run WHERE id <= (SELECT max(id) FROM notify_run) - ? AND status != 'running'",
                arguments: [keptRuns])
            deleted += db.changesCount
            return deleted
        }
    }

    /// The quiet hours of stored minutes (both set, or none).
    static func quietHours(_ start: Int64?, _ end: Int64?) -> QuietHours? {
        guard let start, let end else { return nil }
        return QuietHours(startMinute: Int(start), endMinute: Int(end))
    }

    /// The delivery window of stored minutes (nil when neither bound is set).
    static func window(_ after: Int64?, _ before: Int64?) -> DeliveryWindow? {
        DeliveryWindow(afterMinute: after.map { Int($0) }, beforeMinute: before.map { Int($0) })
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
