import Foundation
import FrostboxCore
import PostgresNIO

/// Shared runs on PostgreSQL (see `NotifyWorkQueue` and `PostgresMigrations.sharedRuns`):
/// starting, joining and closing a run are serialized by an
/// advisory lock; boxes are claimed with `FOR UPDATE SKIP LOCKED` under leases that expire
/// unless renewed, outbox entries the same way but held by the claimer's heartbeat. The rows
/// to claim are picked in a materialized CTE: as a subquery joined to the UPDATE, the planner
/// (with a run's fresh rows not yet analysed) rescanned it per row, minutes for 100,000 boxes.
extension PostgresNotifierStore: NotifyWorkQueue {
    /// The advisory lock serializing run starts, joins and closes ("FbRuns!!" in ASCII).
    static let runsLockKey: Int64 = 0x4662_5275_6e73_2121

    public func joinOrStartRun(at now: Int64, startNew: Bool, startedAfter: Int64?) async throws -> NotifyRunJoin? {
        let worker = worker, lease = leaseSeconds, logger = logger
        // Idle instances ask every few seconds: with no live run there is nothing to join, and
        // seeing that needs neither the lock nor a write.
        if !startNew, try await database.withConnection({ try await Self.liveRun(on: $0, since: now - lease, logger: logger) }) == nil {
            return nil
        }
        return try await database.transaction { connection -> NotifyRunJoin? in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.runsLockKey))", logger: logger)
            if let runID = try await Self.liveRun(on: connection, since: now - lease, logger: logger) {
                try await Self.addWorker(runID, worker, at: now, on: connection, logger: logger)
                let boxes =
                    try await connection.query("SELECT count(*) FROM run_box WHERE run_id = \(runID)", logger: logger)
                    .single(Int64.self) ?? 0
                return NotifyRunJoin(runID: runID, started: false, boxes: Int(boxes))
            }
            // Runs nobody renews any more: their workers died.
            try await connection.query(
                """
                UPDATE notify_run SET status = 'interrupted', finished_at = COALESCE(finished_at, \(now)),
                    error = COALESCE(error, 'its workers stopped')
                WHERE status = 'running'
                """, logger: logger)
            guard startNew else { return nil }
            if let startedAfter {
                // Only runs that went through count: after a crash the work is picked up at once.
                let recent =
                    try await connection.query(
                        """
                        SELECT count(*) FROM notify_run
                        WHERE started_at > \(startedAfter) AND status IN ('completed', 'degraded')
                        """, logger: logger
                    ).single(Int64.self) ?? 0
                if recent > 0 { return nil }
            }
            guard
                let runID = try await connection.query(PostgresNotifyRuns.insert(NotifyRunSummary(startedAt: now)), logger: logger)
                    .single(Int64.self)
            else { throw PostgresStoreError("the run insert returned no id") }
            let boxes = try await connection.query(
                "INSERT INTO run_box (run_id, position, box) SELECT \(runID), position, box FROM \(unescaped: notifyOrderView) RETURNING box",
                logger: logger
            ).collectCount()
            // Statistics for the run's fresh rows, so that claims and counts plan well from the start.
            try await connection.query("ANALYZE run_box", logger: logger)
            try await Self.addWorker(runID, worker, at: now, on: connection, logger: logger)
            return NotifyRunJoin(runID: runID, started: true, boxes: boxes)
        }
    }

    /// The run some worker still renews (its heartbeat after `since`), if any.
    static func liveRun(on connection: PostgresConnection, since: Int64, logger: Logger) async throws -> Int64? {
        try await connection.query(
            """
            SELECT r.id FROM notify_run AS r
            WHERE r.status = 'running' AND EXISTS (
                SELECT 1 FROM run_worker AS w
                WHERE w.run_id = r.id AND w.finished_at IS NULL AND w.heartbeat_at > \(since))
            ORDER BY r.id DESC LIMIT 1
            """, logger: logger
        ).single(Int64.self)
    }

    static func addWorker(_ runID: Int64, _ worker: String, at now: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO run_worker (run_id, worker, joined_at, heartbeat_at) VALUES (\(runID), \(worker), \(now), \(now))
            ON CONFLICT (run_id, worker) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, finished_at = NULL
            """, logger: logger)
    }

    public func claimBoxes(runID: Int64, limit: Int, at now: Int64) async throws -> [GeoBox] {
        guard limit > 0 else { return [] }
        let rows = try await database.query(
            """
            WITH c AS MATERIALIZED (
                SELECT position FROM run_box
                WHERE run_id = \(runID) AND done_at IS NULL AND (lease_until IS NULL OR lease_until < \(now))
                ORDER BY position LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
            UPDATE run_box AS b SET worker = \(worker), lease_until = \(now + leaseSeconds)
            FROM c WHERE b.run_id = \(runID) AND b.position = c.position
            RETURNING b.position, b.box
            """, writes: true)
        var claimed: [(Int32, Int64)] = []
        for try await row in rows.decode((Int32, Int64).self) { claimed.append(row) }
        return claimed.sorted { $0.0 < $1.0 }.compactMap { GeoBox(key: $0.1) }
    }

    public func completeBoxes(runID: Int64, _ boxes: [GeoBox], at now: Int64) async throws {
        guard !boxes.isEmpty else { return }
        let worker = worker, logger = logger
        try await database.transaction { connection in
            let done = try await connection.query(
                """
                UPDATE run_box SET done_at = \(now)
                WHERE run_id = \(runID) AND box = ANY(\(boxes.map(\.key))) AND done_at IS NULL RETURNING box
                """, logger: logger
            ).collectCount()
            try await connection.query(
                "UPDATE run_worker SET boxes = boxes + \(Int32(done)) WHERE run_id = \(runID) AND worker = \(worker)",
                logger: logger)
        }
    }

    public func claimPendingOutbox(runID: Int64, limit: Int, at now: Int64) async throws -> [OutboxEntry] {
        guard limit > 0 else { return [] }
        // Held in this run by this worker, or by another whose heartbeat on it is fresh
        // and whose part is not finished: not claimable. Anything else is.
        return try await claimOutbox(
            """
            WITH c AS MATERIALIZED (
                SELECT p.id FROM outbox AS p
                WHERE p.status = 'pending' AND (p.not_before IS NULL OR p.not_before <= \(now))
                  AND NOT (p.claim_run IS NOT NULL AND p.claim_run = \(runID) AND (p.claimed_by = \(worker) OR EXISTS (
                      SELECT 1 FROM run_worker AS w
                      WHERE w.run_id = \(runID) AND w.worker = p.claimed_by AND w.finished_at IS NULL
                        AND w.heartbeat_at > \(now - leaseSeconds))))
                ORDER BY p.id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
            UPDATE outbox AS o SET claimed_by = \(worker), claim_run = \(runID)
            FROM c WHERE o.id = c.id
            RETURNING o.id
            """)
    }

    public func reclaimPendingOutbox(runID: Int64, ids: [Int64], at now: Int64) async throws -> [OutboxEntry] {
        guard !ids.isEmpty else { return [] }
        // `claimPendingOutbox`'s rule, except that this worker's own claims in the run count
        // as its own: held by another live worker of the run, an entry is not taken back.
        return try await claimOutbox(
            """
            WITH c AS MATERIALIZED (
                SELECT p.id FROM outbox AS p
                WHERE p.id = ANY(\(ids)) AND p.status = 'pending' AND (p.not_before IS NULL OR p.not_before <= \(now))
                  AND NOT (p.claim_run IS NOT NULL AND p.claim_run = \(runID) AND p.claimed_by <> \(worker) AND EXISTS (
                      SELECT 1 FROM run_worker AS w
                      WHERE w.run_id = \(runID) AND w.worker = p.claimed_by AND w.finished_at IS NULL
                        AND w.heartbeat_at > \(now - leaseSeconds)))
                ORDER BY p.id FOR UPDATE SKIP LOCKED)
            UPDATE outbox AS o SET claimed_by = \(worker), claim_run = \(runID)
            FROM c WHERE o.id = c.id
            RETURNING o.id
            """)
    }

    /// Runs a claiming `UPDATE … RETURNING o.id` and reads the entries it claimed (by id), in
    /// one transaction.
    private func claimOutbox(_ claim: PostgresQuery) async throws -> [OutboxEntry] {
        let logger = logger
        return try await database.transaction { connection in
            var ids: [Int64] = []
            for try await id in try await connection.query(claim, logger: logger).decode(Int64.self) { ids.append(id) }
            return try await PostgresOutboxWriter.entries(ids: ids, on: connection, logger: logger)
        }
    }

    public func renewLeases(runID: Int64, at now: Int64) async throws {
        let worker = worker, until = now + leaseSeconds, logger = logger
        // Boxes first, then the worker row: the order `completeBoxes` takes its locks in.
        try await database.transaction { connection in
            try await connection.query(
                """
                UPDATE run_box SET lease_until = \(until)
                WHERE run_id = \(runID) AND worker = \(worker) AND done_at IS NULL AND lease_until >= \(now)
                """, logger: logger)
            try await connection.query(
                "UPDATE run_worker SET heartbeat_at = \(now) WHERE run_id = \(runID) AND worker = \(worker)", logger: logger)
        }
    }

    public func remainingWork(runID: Int64, at now: Int64) async throws -> NotifyRunRemainder {
        let rows = try await database.query(
            """
            SELECT (SELECT count(*) FROM run_box WHERE run_id = \(runID) AND done_at IS NULL),
                   (SELECT count(*) FROM outbox AS o
                    WHERE o.status = 'pending' AND (o.not_before IS NULL OR o.not_before <= \(now))
                      AND o.claim_run = \(runID) AND o.claimed_by <> \(worker) AND EXISTS (
                        SELECT 1 FROM run_worker AS w
                        WHERE w.run_id = \(runID) AND w.worker = o.claimed_by AND w.finished_at IS NULL
                          AND w.heartbeat_at > \(now - leaseSeconds)))
            """)
        for try await (boxes, entries) in rows.decode((Int64, Int64).self) {
            return NotifyRunRemainder(boxes: Int(boxes), claimedEntries: Int(entries))
        }
        return NotifyRunRemainder(boxes: 0, claimedEntries: 0)
    }

    public func finishPart(_ part: NotifyRunSummary, at now: Int64) async throws -> Bool {
        let worker = worker, lease = leaseSeconds, logger = logger
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.runsLockKey))", logger: logger)
            // A worker that finished its part and joined the same run again (the other instance
            // was still on it) adds its second part to its first: the row holds the worker's sum,
            // so a late empty part cannot wipe what the first one did.
            var part = part
            let earlier = try await connection.query(
                "SELECT summary FROM run_worker WHERE run_id = \(part.id) AND worker = \(worker) AND summary IS NOT NULL", logger: logger)
            for try await text in earlier.decode(String.self) {
                let first = try JSONDecoder().decode(NotifyRunSummary.self, from: Data(text.utf8))
                part = NotifyRunSummary.combining([first, part], runID: part.id, boxes: first.boxes + part.boxes)
            }
            let json = String(decoding: try JSONEncoder().encode(part), as: UTF8.self)
            try await connection.query(
                """
                UPDATE run_worker SET finished_at = \(now), heartbeat_at = \(now), summary = \(json),
                    alerts_planned = \(Int32(clamping: part.alertsPlanned)), alerts_delivered = \(Int32(clamping: part.alertsDelivered)),
                    alerts_carried_over = \(Int32(clamping: part.alertsCarriedOver))
                WHERE run_id = \(part.id) AND worker = \(worker)
                """, logger: logger)
            let others =
                try await connection.query(
                    """
                    SELECT count(*) FROM run_worker
                    WHERE run_id = \(part.id) AND worker <> \(worker) AND finished_at IS NULL AND heartbeat_at > \(now - lease)
                    """, logger: logger
                ).single(Int64.self) ?? 0
            guard others == 0 else { return false }
            // The last worker on the run closes it with the sum of every part.
            var parts: [NotifyRunSummary] = []
            let rows = try await connection.query(
                "SELECT summary FROM run_worker WHERE run_id = \(part.id) AND summary IS NOT NULL", logger: logger)
            for try await text in rows.decode(String.self) {
                parts.append(try JSONDecoder().decode(NotifyRunSummary.self, from: Data(text.utf8)))
            }
            let counts = try await connection.query(
                "SELECT count(*), count(*) FILTER (WHERE done_at IS NULL) FROM run_box WHERE run_id = \(part.id)", logger: logger)
            var boxes = 0, undone = 0
            for try await (all, open) in counts.decode((Int64, Int64).self) { (boxes, undone) = (Int(all), Int(open)) }
            var total = NotifyRunSummary.combining(parts, runID: part.id, boxes: boxes)
            total.finishedAt = max(total.finishedAt ?? now, now)
            if undone > 0, total.status != .failed {
                total.status = .interrupted
                total.error = total.error ?? "\(undone) box(es) left undone"
            }
            try await connection.query(PostgresNotifyRuns.update(total), logger: logger)
            return true
        }
    }

    public func workers(ofRuns runIDs: [Int64]) async throws -> [Int64: [NotifyRunWorker]] {
        guard !runIDs.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT run_id, worker, joined_at, finished_at, heartbeat_at, boxes, alerts_planned, alerts_delivered, alerts_carried_over
            FROM run_worker WHERE run_id = ANY(\(runIDs)) ORDER BY run_id, joined_at, worker
            """)
        var result: [Int64: [NotifyRunWorker]] = [:]
        for try await (runID, worker, joined, finished, heartbeat, boxes, planned, delivered, carried) in rows.decode(
            (Int64, String, Int64, Int64?, Int64, Int32, Int32, Int32, Int32).self)
        {
            result[runID, default: []].append(
                NotifyRunWorker(
                    worker: worker, joinedAt: joined, finishedAt: finished, heartbeatAt: heartbeat, boxes: Int(boxes),
                    alertsPlanned: Int(planned), alertsDelivered: Int(delivered), alertsCarriedOver: Int(carried)))
        }
        return result
    }
}
