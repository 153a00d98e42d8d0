import Foundation
import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

/// Writes and reads outbox rows in bulk: each distinct push of a chunk stored once in
/// `outbox_push`, the rows inserted by one statement over bound arrays, ids taken from the
/// sequence up front so that they rise in entry order.
enum PostgresOutboxWriter {
    /// Stands for NULL in a bound array of integers (arrays cannot hold NULL here).
    static let noValue = Int64.min

    /// Stores `entries` (one chunk); those stored, with their ids. An entry whose device is
    /// gone or whose (device, event) is already there is skipped.
    /// The entries are claimed by `worker` in run `runID`.
    static func insert(
        _ entries: [OutboxEntry], runID: Int64?, worker: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> [OutboxEntry] {
        // The distinct pushes of the chunk, stored once each.
        var pushIndex: [OutboxPush.ExactKey: Int] = [:]
        var pushes: [OutboxPush] = []
        var pushOfEntry: [Int] = []
        pushOfEntry.reserveCapacity(entries.count)
        for entry in entries {
            let push = OutboxPush(entry.notification)
            let key = OutboxPush.ExactKey(push)
            if let index = pushIndex[key] {
                pushOfEntry.append(index)
            } else {
                pushIndex[key] = pushes.count
                pushOfEntry.append(pushes.count)
                pushes.append(push)
            }
        }
        let pushIDs = try await nextIDs("outbox_push", count: pushes.count, on: connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO outbox_push (id, collapse_id, push_type, priority, expiration, payload)
            SELECT id, CASE WHEN has_collapse_id THEN collapse_id END, push_type, priority, NULLIF(expiration, \(noValue)), payload
            FROM unnest(\(pushIDs), \(pushes.map { $0.collapseID != nil }), \(pushes.map { $0.collapseID ?? "" }),
                        \(pushes.map { _ in OutboxPush.alertType }), \(pushes.map { Int16($0.priority.rawValue) }),
                        \(pushes.map { $0.expiration ?? noValue }), \(pushes.map(\.content.outboxJSON)))
                AS u(id, has_collapse_id, collapse_id, push_type, priority, expiration, payload)
            """, logger: logger)

        let ids = try await nextIDs("outbox", count: entries.count, on: connection, logger: logger)
        let pushColumn = pushOfEntry.map { pushIDs[$0] }
        let devices = try await lockDevices(tokens: entries.map(\.token.value), on: connection, logger: logger)
        if try await copyStraight(
            entries, ids: ids, pushIDs: pushColumn, lockedDevices: devices, runID: runID, worker: worker, on: connection, logger: logger)
        {
            var stored = entries
            for index in stored.indices { stored[index].id = ids[index] }
            return try await withoutCancelled(stored, on: connection, logger: logger)
        }
        var tokens: [String] = [], boxes: [Int64] = [], nights: [Int32] = [], levels: [Int16] = [], kinds: [String] = []
        var messageIDs: [String] = [], topics: [String] = [], hasTopic: [Bool] = []
        var environments: [String] = [], attempts: [Int32] = [], created: [Int64] = [], expires: [Int64] = []
        var notBefore: [Int64] = [], frostStartsAt: [Int64] = []
        for entry in entries {
            let n = entry.notification
            let event = entry.event
            tokens.append(entry.token.value)
            boxes.append(event.box.key)
            nights.append(Int32(event.night.compactNumber))
            levels.append(Int16(event.level.rawValue))
            kinds.append(entry.kind.rawValue)
            messageIDs.append(entry.storedMessageID ?? "")
            topics.append(n.app ?? "")
            hasTopic.append(n.app != nil)
            environments.append(n.environment?.rawValue ?? "")
            attempts.append(Int32(clamping: entry.attempts))
            created.append(entry.createdAt)
            expires.append(entry.alertedUntil)
            notBefore.append(entry.notBefore ?? noValue)
            frostStartsAt.append(entry.frostStartsAt ?? noValue)
        }
        let rows = try await connection.query(
            """
            INSERT INTO outbox (id, device_id, box, night, level, kind, push_id, message_id, app, environment,
                                status, attempts, created_at, expires_at, run_id, claimed_by, claim_run, not_before, frost_starts_at)
            SELECT u.id, d.id, u.box, u.night, u.level, u.kind, u.push_id, NULLIF(u.message_id, ''),
                   CASE WHEN u.has_app THEN u.app END, NULLIF(u.environment, ''), 'pending', u.attempts,
                   u.created_at, u.expires_at, \(runID), \(worker), \(runID), NULLIF(u.not_before, \(noValue)),
                   NULLIF(u.frost_starts_at, \(noValue))
            FROM unnest(\(ids), \(tokens), \(boxes), \(nights), \(levels), \(kinds), \(pushColumn), \(messageIDs), \(topics),
                        \(hasTopic), \(environments), \(attempts), \(created), \(expires), \(notBefore), \(frostStartsAt))
                AS u(id, token, box, night, level, kind, push_id, message_id, app, has_app, environment, attempts,
                     created_at, expires_at, not_before, frost_starts_at)
            JOIN device AS d ON d.token = u.token
            ORDER BY u.id
            ON CONFLICT (box, device_id, night, level) DO NOTHING
            RETURNING id
            """, logger: logger)
        var inserted: Set<Int64> = []
        for try await id in rows.decode(Int64.self) { inserted.insert(id) }
        var stored: [OutboxEntry] = []
        stored.reserveCapacity(inserted.count)
        for (index, var entry) in entries.enumerated() where inserted.contains(ids[index]) {
            entry.id = ids[index]
            stored.append(entry)
        }
        return try await withoutCancelled(stored, on: connection, logger: logger)
    }

    /// Locks the devices of `tokens` as the foreign key's check did (`FOR KEY SHARE`), once per
    /// chunk and before either way of writing it: the outbox has no such key (it is keyed by
    /// box), and a delete of one of them then waits for this chunk's commit, so its trigger
    /// finds the chunk's rows. A device already gone is not locked (the COPY is then not taken,
    /// and the statement's join skips its entries). Returns the ids of the devices locked.
    static func lockDevices(tokens: [String], on connection: PostgresConnection, logger: Logger) async throws -> Set<Int64> {
        var locked: Set<Int64> = []
        let rows = try await connection.query(
            "SELECT id FROM device WHERE token = ANY(\(Array(Set(tokens)))) ORDER BY id FOR KEY SHARE", logger: logger)
        for try await id in rows.decode(Int64.self) { locked.insert(id) }
        return locked
    }

    /// `stored` after ending what its escalations and all-clears replace (`endHeld`), without
    /// the all-clears that so cancelled themselves.
    private static func withoutCancelled(_ stored: [OutboxEntry], on connection: PostgresConnection, logger: Logger) async throws -> [OutboxEntry] {
        let cancelled = try await endHeld(before: stored.filter { $0.kind != .frost }, on: connection, logger: logger)
        return cancelled.isEmpty ? stored : stored.filter { !cancelled.contains($0.id) }
    }

    /// Ends the entries still held for quiet hours that the stored escalations and
    /// all-clears `replacing` replace (same device, box and night), and the all-clears that so
    /// cancelled one; returns the ids of those all-clears (see `NotifierStore.enqueue`).
    static func endHeld(before replacing: [OutboxEntry], on connection: PostgresConnection, logger: Logger) async throws -> Set<Int64> {
        guard !replacing.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            UPDATE outbox AS o SET status = 'failed', failure_class = 'expired', failure_reason = \(OutboxEntry.replacedWhileHeld)
            FROM outbox AS e
            WHERE e.id = ANY(\(replacing.map(\.id))) AND o.device_id = e.device_id AND o.box = e.box AND o.night = e.night
              AND o.id <> e.id AND o.status = 'pending' AND o.not_before IS NOT NULL
            RETURNING e.id
            """, logger: logger)
        var replacers: Set<Int64> = []
        for try await id in rows.decode(Int64.self) { replacers.insert(id) }
        let cancelled = replacing.filter { $0.kind == .allClear && replacers.contains($0.id) }.map(\.id)
        guard !cancelled.isEmpty else { return [] }
        try await connection.query(
            """
            UPDATE outbox SET status = 'failed', failure_class = 'expired', failure_reason = \(OutboxEntry.cancelledWhileHeld)
            WHERE id = ANY(\(cancelled))
            """, logger: logger)
        return Set(cancelled)
    }

    /// `count` new ids of `table`'s identity column, ascending.
    static func nextIDs(_ table: String, count: Int, on connection: PostgresConnection, logger: Logger) async throws -> [Int64] {
        guard count > 0 else { return [] }
        let rows = try await connection.query(
            """
            SELECT nextval(pg_get_serial_sequence(\(table), 'id')) FROM generate_series(1, \(Int64(count)))
            """, logger: logger)
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        ids.sort()
        return ids
    }

    /// Pending entries with `after < id <= through`, by id, at most `limit`; each distinct
    /// push of the page decoded once.
    static func pending(
        on connection: PostgresConnection, after: Int64, through: Int64, limit: Int, dueBy: Int64, logger: Logger
    ) async throws -> [OutboxEntry] {
        try await read(
            on: connection,
            """
            WHERE o.status = 'pending' AND o.id > \(after) AND o.id <= \(through) AND (o.not_before IS NULL OR o.not_before <= \(dueBy))
            ORDER BY o.id LIMIT \(Int64(limit))
            """, logger: logger)
    }

    /// The entries with these ids, by id.
    static func entries(ids: [Int64], on connection: PostgresConnection, logger: Logger) async throws -> [OutboxEntry] {
        guard !ids.isEmpty else { return [] }
        return try await read(on: connection, "WHERE o.id = ANY(\(ids)) ORDER BY o.id", logger: logger)
    }

    /// Outbox rows matching `condition` (a query tail from WHERE on, over `outbox AS o`).
    static func read(on connection: PostgresConnection, _ condition: PostgresQuery, logger: Logger) async throws -> [OutboxEntry] {
        typealias Row = (
            id: Int64, token: String, box: Int64, night: Int32, level: Int16, kind: String, pushID: Int64,
            messageID: String?, app: String?, environment: String?, attempts: Int32, createdAt: Int64, platform: String,
            notBefore: Int64?, frostStartsAt: Int64?
        )
        var rows: [Row] = []
        let query = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT o.id, d.token, o.box, o.night, o.level, o.kind, o.push_id, o.message_id, o.app, o.environment,
                           o.attempts, o.created_at, d.platform, o.not_before, o.frost_starts_at
                    FROM outbox AS o JOIN device AS d ON d.id = o.device_id
                    """ + " " + condition.sql, binds: condition.binds),
            logger: logger)
        for try await row in query {
            let head = try row.decode((Int64, String, Int64, Int32, Int16, String, Int64, String?, String?, String?, Int32, Int64, String).self)
            let columns = row.makeRandomAccess()
            rows.append(
                (
                    head.0, head.1, head.2, head.3, head.4, head.5, head.6, head.7, head.8, head.9, head.10, head.11, head.12,
                    try columns[13].decode(Int64?.self), try columns[14].decode(Int64?.self)
                ))
        }
        var pushes: [Int64: OutboxPush] = [:]
        let pushIDs = Array(Set(rows.map(\.pushID)))
        if !pushIDs.isEmpty {
            let pushRows = try await connection.query(
                "SELECT id, collapse_id, push_type, priority, expiration, payload FROM outbox_push WHERE id = ANY(\(pushIDs))",
                logger: logger)
            for try await (id, collapseID, type, priority, expiration, payload) in pushRows.decode(
                (Int64, String?, String, Int16, Int64?, String).self)
            {
                guard
                    let push = try OutboxPush(
                        collapseID: collapseID, pushType: type, priority: Int(priority), expiration: expiration, payloadJSON: payload)
                else { throw PostgresStoreError("outbox push \(id) holds values this version cannot read") }
                pushes[id] = push
            }
        }
        return try rows.map { row in
            guard let box = GeoBox(key: row.box), let night = LocalDate(compactNumber: Int(row.night)),
                let level = FrostLevel(rawValue: Int(row.level)), let kind = AlertKind(rawValue: row.kind),
                let push = pushes[row.pushID]
            else { throw PostgresStoreError("outbox row \(row.id) holds values this version cannot read") }
            let token = DeviceToken(trusted: row.token)
            let event = FrostEvent(box: box, night: night, level: level)
            let notification = push.notification(
                token: token, event: event, storedMessageID: row.messageID, platform: DevicePlatform(rawValue: row.platform) ?? .ios, app: row.app,
                environment: row.environment.flatMap(PushEnvironment.init(rawValue:)))
            return OutboxEntry(
                id: row.id, event: event, kind: kind, notification: notification, attempts: Int(row.attempts), createdAt: row.createdAt,
                notBefore: row.notBefore, frostStartsAt: row.frostStartsAt)
        }
    }

}
