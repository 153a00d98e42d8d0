import Foundation
import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

/// The `NotifierStore` on PostgreSQL, with the same layout as the SQLite outbox (see
/// `PostgresMigrations`): bulk writes go as arrays bound to one statement (`unnest`), a few
/// thousand rows each, inside one transaction per call, committed before it returns.
public struct PostgresNotifierStore: NotifierStore {
    let database: PostgresDatabase
    /// How many runs the runs table keeps.
    public let keptRuns: Int
    /// Rows written per statement.
    static let chunk = 5_000
    /// The advisory lock serializing purges ("FbPurge!" in ASCII).
    static let purgeLockKey: Int64 = 0x4662_5075_7267_6521
    /// This instance's name in shared runs (`NotifyWorkQueue`).
    public let worker: String
    /// How long a claim on boxes or outbox entries lasts without renewal, seconds.
    public let leaseSeconds: Int64
    /// Devices must be proven real (`DeviceVerification`): boxes without a verified device
    /// are not asked for and pending devices get no alerts. False: every device counts.
    public let verifiedDevicesOnly: Bool

    public init(
        database: PostgresDatabase, keptRuns: Int = 10_000, worker: String = PostgresNotifierStore.defaultWorker, leaseSeconds: Int64 = 30,
        verifiedDevicesOnly: Bool = false
    ) {
        self.database = database
        self.keptRuns = keptRuns
        self.worker = worker
        self.leaseSeconds = leaseSeconds
        self.verifiedDevicesOnly = verifiedDevicesOnly
    }

    /// The view listing the boxes a run asks for, in order (`PostgresMigrations.notifyOrder`).
    var notifyOrderView: String { verifiedDevicesOnly ? "box_notify_order_verified" : "box_notify_order" }

    /// `host:pid`, unique among the instances of a cluster (looked up once: the host name can
    /// take a resolver round trip).
    public static let defaultWorker = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

    var logger: Logger { database.logger }

    public func boxesToNotify() async throws -> [GeoBox] {
        let rows = try await database.query("SELECT box FROM \(unescaped: notifyOrderView) ORDER BY position")
        var boxes: [GeoBox] = []
        for try await key in rows.decode(Int64.self) {
            if let box = GeoBox(key: key) { boxes.append(box) }
        }
        return boxes
    }

    public func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] {
        guard !boxes.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT s.box, s.id, s.token, s.name, s.unit, s.rule, s.frost_risk_c, s.freeze_c, s.hard_freeze_c,
                   s.all_clear, d.app, d.environment, d.platform, d.quiet_start, d.quiet_end, d.hard_freeze_breaks_quiet,
                   s.notify_after, s.notify_before, d.id, s.min_probability
            FROM subscription AS s JOIN device AS d ON d.token = s.token
            WHERE s.box = ANY(\(boxes.map(\.key))) AND (d.verified_at IS NOT NULL OR NOT \(verifiedDevicesOnly))
            ORDER BY s.box, s.token COLLATE "C", s.id
            """)
        var result: [GeoBox: [SubscribedPlace]] = [:]
        for try await row in rows {
            let (key, id, token, name, unit, rule, frostRisk, freeze, hardFreeze, allClear, app, environment, platform) = try row.decode(
                (Int64, Int64, String, String, String, String?, Double?, Double?, Double?, Bool, String?, String?, String).self)
            guard let box = GeoBox(key: key) else { continue }
            let columns = row.makeRandomAccess()
            var place =
                SubscribedPlace(
                    subscriptionID: id, token: DeviceToken(trusted: token), name: name,
                    unit: TemperatureUnit(rawValue: unit) ?? .celsius,
                    settings: AlertSettings(
                        rule: rule, frostRiskC: frostRisk, freezeC: freeze, hardFreezeC: hardFreeze, allClear: allClear,
                        window: Self.window(try columns[16].decode(Int32?.self), try columns[17].decode(Int32?.self)),
                        minProbability: try columns[19].decode(Double?.self)),
                    platform: DevicePlatform(rawValue: platform) ?? .ios, app: app,
                    environment: environment.flatMap(PushEnvironment.init(rawValue:)),
                    quietHours: Self.quietHours(try columns[13].decode(Int32?.self), try columns[14].decode(Int32?.self)),
                    hardFreezeBreaksQuietHours: try columns[15].decode(Bool.self))
            place.deviceKey = try columns[18].decode(Int64.self)
            result[box, default: []].append(place)
        }
        return result
    }

    public func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] {
        guard !boxes.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT d.token, o.box, o.night, o.level, o.kind, o.attempts = 0 AND o.not_before IS NOT NULL
            FROM outbox AS o JOIN device AS d ON d.id = o.device_id
            WHERE o.box = ANY(\(boxes.map(\.key))) AND o.expires_at > \(now)
            """)
        var result: [GeoBox: [AlertedEvent]] = [:]
        for try await (token, key, night, level, kind, neverSent) in rows.decode((String, Int64, Int32, Int16, String, Bool).self) {
            guard let box = GeoBox(key: key), let night = LocalDate(compactNumber: Int(night)),
                let level = FrostLevel(rawValue: Int(level)), let kind = AlertKind(rawValue: kind)
            else { continue }
            result[box, default: []].append(
                AlertedEvent(
                    token: DeviceToken(trusted: token), event: FrostEvent(box: box, night: night, level: level), kind: kind, neverSent: neverSent))
        }
        return result
    }

    public func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws {
        guard !succeeded.isEmpty || !failed.isEmpty else { return }
        let failures = Array(failed)
        let logger = logger
        try await database.transaction { connection in
            if !succeeded.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO box_fetch (box, last_attempt_at, last_success_at, failing_since, failure)
                    SELECT box, \(now), \(now), NULL, NULL FROM unnest(\(Array(Set(succeeded.map(\.key))))) AS u(box)
                    ON CONFLICT (box) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                        last_success_at = excluded.last_success_at, failing_since = NULL, failure = NULL
                    """, logger: logger)
            }
            if !failures.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO box_fetch (box, last_attempt_at, last_success_at, failing_since, failure)
                    SELECT box, \(now), NULL, \(now), failure
                    FROM unnest(\(failures.map(\.key.key)), \(failures.map(\.value))) AS u(box, failure)
                    ON CONFLICT (box) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                        failing_since = COALESCE(box_fetch.failing_since, excluded.failing_since),
                        failure = excluded.failure
                    """, logger: logger)
            }
        }
    }

    public func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] {
        guard !entries.isEmpty else { return [] }
        let logger = logger
        let worker = worker
        return try await database.transaction { connection in
            // One transaction: the rows are the queued pushes and the alerted marks at once.
            var stored: [OutboxEntry] = []
            stored.reserveCapacity(entries.count)
            for start in stride(from: 0, to: entries.count, by: Self.chunk) {
                let chunk = Array(entries[start..<min(start + Self.chunk, entries.count)])
                stored += try await PostgresOutboxWriter.insert(chunk, runID: runID, worker: worker, on: connection, logger: logger)
            }
            return stored
        }
    }

    public func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        try await database.withConnection { connection in
            try await PostgresOutboxWriter.pending(
                on: connection, after: after, through: through ?? Int64.max, limit: limit, dueBy: dueBy, logger: logger)
        }
    }

    public func lastOutboxID() async throws -> Int64 {
        try await database.query("SELECT COALESCE(max(id), 0) FROM outbox").single(Int64.self) ?? 0
    }

    public func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws {
        guard !outcomes.isEmpty else { return }
        // One statement applies a batch of outcomes at once; an id seen twice starts a new
        // batch, so that its outcomes apply in order, as one update after another would.
        var batches: [[(id: Int64, outcome: OutboxOutcome)]] = [[]]
        var seen: Set<Int64> = []
        for outcome in outcomes {
            if seen.contains(outcome.id) || batches[batches.count - 1].count >= Self.chunk {
                batches.append([])
                seen = []
            }
            seen.insert(outcome.id)
            batches[batches.count - 1].append(outcome)
        }
        let logger = logger
        try await database.transaction { [batches] connection in
            for batch in batches where !batch.isEmpty {
                var ids: [Int64] = [], statuses: [String] = [], times: [Int64] = [], messageIDs: [String] = []
                var classes: [String] = [], reasons: [String] = []
                for (id, outcome) in batch {
                    ids.append(id)
                    switch outcome {
                    case .delivered(let at, let messageID):
                        statuses.append("delivered")
                        times.append(at)
                        messageIDs.append(messageID)
                        classes.append("")
                        reasons.append("")
                    case .failed(let failure, let reason, let at):
                        statuses.append(failure.keepsEntryPending ? "pending" : "failed")
                        times.append(at)
                        messageIDs.append("")
                        classes.append(failure.rawValue)
                        reasons.append(String(reason.prefix(500)))
                    }
                }
                try await connection.query(
                    """
                    UPDATE outbox AS o SET status = u.status, attempts = o.attempts + 1, last_attempt_at = u.at,
                        delivered_at = CASE WHEN u.status = 'delivered' THEN u.at END,
                        delivered_message_id = CASE WHEN u.status = 'delivered' THEN u.message_id END,
                        failure_class = NULLIF(u.class, ''),
                        failure_reason = CASE WHEN u.status = 'delivered' THEN NULL ELSE u.reason END
                    FROM unnest(\(ids), \(statuses), \(times), \(messageIDs), \(classes), \(reasons))
                        AS u(id, status, at, message_id, class, reason)
                    WHERE o.id = u.id AND o.status = 'pending'
                    """, logger: logger)
            }
        }
    }

    public func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool {
        // Subscriptions go with the device by ON DELETE CASCADE, outbox rows by the trigger
        // `outbox_of_deleted_device`.
        try await database.query(
            "DELETE FROM device WHERE token = \(token.value) AND registered_at <= \(cutoff) RETURNING id", writes: true
        ).collectCount() > 0
    }

    public func startRun(at now: Int64) async throws -> Int64 {
        let logger = logger
        return try await database.transaction { connection in
            try await connection.query(
                "UPDATE notify_run SET status = 'interrupted', finished_at = COALESCE(finished_at, \(now)) WHERE status = 'running'",
                logger: logger)
            return try await connection.query(PostgresNotifyRuns.insert(NotifyRunSummary(startedAt: now)), logger: logger)
                .single(Int64.self) ?? 0
        }
    }

    public func finishRun(_ summary: NotifyRunSummary) async throws {
        try await database.query(PostgresNotifyRuns.update(summary), writes: true)
    }

    public func recentRuns(limit: Int) async throws -> [NotifyRunSummary] {
        var binds = PostgresBindings()
        binds.append(Int64(limit))
        let rows = try await database.query(
            PostgresQuery(unsafeSQL: PostgresNotifyRuns.select + " ORDER BY id DESC LIMIT $1", binds: binds))
        var runs: [NotifyRunSummary] = []
        for try await row in rows { runs.append(try PostgresNotifyRuns.summary(row)) }
        return runs
    }

    @discardableResult
    public func purge(before: Int64) async throws -> Int {
        let keptRuns = Int64(keptRuns)
        let logger = logger
        return try await database.transaction { connection in
            // One purge at a time cluster-wide: two workers closing their parts together
            // would otherwise delete the same rows in different orders (a deadlock).
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.purgeLockKey))", logger: logger)
            var deleted = 0
            // A NULL expiration never compares below `before`: such entries are kept.
            deleted += try await connection.query(
                """
                DELETE FROM outbox WHERE status != 'pending'
                    AND push_id IN (SELECT id FROM outbox_push WHERE expiration < \(before))
                RETURNING id
                """, logger: logger
            ).collectCount()
            try await connection.query(
                "DELETE FROM outbox_push AS p WHERE NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.push_id = p.id)", logger: logger)
            // A departed box is only needed while the device may still have rows there (one
            // planned before it left and written after): a day on, and with none left, it goes.
            try await connection.query(
                """
                DELETE FROM outbox_departed AS p WHERE p.departed_at < extract(epoch FROM now())::bigint - 86400
                    AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.box = p.box AND o.device_id = p.device_id)
                """, logger: logger)
            deleted += try await connection.query(
                "DELETE FROM box_fetch AS f WHERE NOT EXISTS (SELECT 1 FROM subscription AS s WHERE s.box = f.box) RETURNING box",
                logger: logger
            ).collectCount()
            deleted += try await connection.query(
                """
                DELETE FROM notify_run WHERE id <= (SELECT max(id) FROM notify_run) - \(keptRuns) AND status != 'running'
                RETURNING id
                """, logger: logger
            ).collectCount()
            return deleted
        }
    }

    /// The delivery window of stored minutes (nil when neither bound is set).
    static func window(_ after: Int32?, _ before: Int32?) -> DeliveryWindow? {
        DeliveryWindow(afterMinute: after.map { Int($0) }, beforeMinute: before.map { Int($0) })
    }

    /// The quiet hours of stored minutes (both set, or none).
    static func quietHours(_ start: Int32?, _ end: Int32?) -> QuietHours? {
        guard let start, let end else { return nil }
        return QuietHours(startMinute: Int(start), endMinute: Int(end))
    }
}
