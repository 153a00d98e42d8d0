import Foundation
import FrostboxCore
import FrostboxStorageFormats
import GRDB

/// Writes outbox entries within one write transaction: statements prepared once, the device
/// id carried from the subscription read (checked by its row, which must still hold the
/// token) or else found by token, the payload JSON written once per distinct push.
struct OutboxWriter {
    private let db: Database
    private let addPush: RawStatement
    private let addEntry: RawStatement
    private let addEntryByKey: RawStatement
    private let endHeld: RawStatement
    private let endEntry: RawStatement
    private var pushes: [OutboxPush.ExactKey: Int64] = [:]

    init(_ db: Database) throws {
        self.db = db
        addPush = try RawStatement(
            db, sql: "INSERT INTO outbox_push (collapse_id, push_type, priority, expiration, payload) VALUES (?, ?, ?, ?, ?)")
        addEntry = try RawStatement(
            db,
            sql: """
                INSERT INTO outbox (device_id, box, night, level, kind, push_id, message_id, app, environment,
                    status, attempts, created_at, expires_at, run_id, not_before, frost_starts_at)
                SELECT id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10, ?11, ?12, ?13, ?14, ?15 FROM device WHERE token = ?1
                ON CONFLICT (box, device_id, night, level) DO NOTHING
                """)
        addEntryByKey = try RawStatement(
            db,
            sql: """
                INSERT INTO outbox (device_id, box, night, level, kind, push_id, message_id, app, environment,
                    status, attempts, created_at, expires_at, run_id, not_before, frost_starts_at)
                SELECT id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10, ?11, ?12, ?13, ?14, ?15 FROM device
                WHERE id = ?16 AND token = ?1
                ON CONFLICT (box, device_id, night, level) DO NOTHING
                """)
        endHeld = try RawStatement(
            db,
            sql: """
                UPDATE outbox SET status = 'failed', failure_class = 'expired', failure_reason = ?1
                WHERE device_id = (SELECT device_id FROM outbox WHERE id = ?2) AND box = ?3 AND night = ?4 AND id != ?2
                    AND status = 'pending' AND not_before IS NOT NULL
                """)
        endEntry = try RawStatement(
            db, sql: "UPDATE outbox SET status = 'failed', failure_class = 'expired', failure_reason = ?1 WHERE id = ?2")
    }

    /// After `entry` (stored, with its id) is an escalation or all-clear: ends its device's
    /// entries of the same box and night still held for quiet hours, and ends an all-clear
    /// that so cancelled one. False when `entry` itself was ended (see `NotifierStore.enqueue`).
    mutating func endHeldBefore(_ entry: OutboxEntry) throws -> Bool {
        guard entry.kind != .frost else { return true }
        endHeld.bind(1, OutboxEntry.replacedWhileHeld)
        endHeld.bind(2, entry.id)
        endHeld.bind(3, entry.event.box.key)
        endHeld.bind(4, Int64(entry.event.night.compactNumber))
        try endHeld.execute()
        guard db.changesCount > 0, entry.kind == .allClear else { return true }
        endEntry.bind(1, OutboxEntry.cancelledWhileHeld)
        endEntry.bind(2, entry.id)
        try endEntry.execute()
        return false
    }

    /// Stores `entry`; its id, or nil when its device is gone or its (device, event) is already
    /// there (the device's id is looked up by the insert: one statement per entry).
    mutating func insert(_ entry: OutboxEntry, runID: Int64?) throws -> Int64? {
        let n = entry.notification
        let pushID = try self.pushID(OutboxPush(n))
        let event = entry.event
        // The device row by its key (an integer seek); the token check keeps a key reused by
        // a device registered since the read from taking another device's alert.
        let addEntry = entry.deviceKey == nil ? self.addEntry : addEntryByKey
        if let key = entry.deviceKey { addEntry.bind(16, key) }
        addEntry.bind(1, entry.token.value)
        addEntry.bind(2, event.box.key)
        addEntry.bind(3, Int64(event.night.compactNumber))
        addEntry.bind(4, Int64(event.level.rawValue))
        addEntry.bind(5, entry.kind.rawValue)
        addEntry.bind(6, pushID)
        bind(addEntry, 7, entry.storedMessageID)
        bind(addEntry, 8, n.app)
        bind(addEntry, 9, n.environment?.rawValue)
        addEntry.bind(10, Int64(entry.attempts))
        addEntry.bind(11, entry.createdAt)
        addEntry.bind(12, entry.alertedUntil)
        addEntry.bind(13, runID)
        addEntry.bind(14, entry.notBefore)
        addEntry.bind(15, entry.frostStartsAt)
        try addEntry.execute()
        guard db.changesCount > 0 else { return nil }
        return db.lastInsertedRowID
    }

    private mutating func pushID(_ push: OutboxPush) throws -> Int64 {
        let key = OutboxPush.ExactKey(push)
        if let id = pushes[key] { return id }
        bind(addPush, 1, push.collapseID)
        addPush.bind(2, OutboxPush.alertType)
        addPush.bind(3, Int64(push.priority.rawValue))
        addPush.bind(4, push.expiration)
        addPush.bind(5, push.content.outboxJSON)
        try addPush.execute()
        let id = db.lastInsertedRowID
        pushes[key] = id
        return id
    }

    private func bind(_ statement: RawStatement, _ index: Int32, _ value: String?) {
        if let value { statement.bind(index, value) } else { statement.bind(index, nil as Int64?) }
    }
}

/// Reads outbox entries back as the exact pushes that were planned.
enum OutboxReader {
    /// Pending entries with `after < id <= through`, by id, at most `limit`; each distinct
    /// push of the page is decoded once.
    static func pending(_ db: Database, after: Int64, through: Int64, limit: Int, dueBy: Int64) throws -> [OutboxEntry] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT o.id, d.token, o.box, o.night, o.level, o.kind, o.push_id, o.message_id, o.app, o.environment,
                       o.attempts, o.created_at, d.platform, o.not_before, o.frost_starts_at
                FROM outbox AS o JOIN device AS d ON d.id = o.device_id
                WHERE o.status = 'pending' AND o.id > ? AND o.id <= ? AND (o.not_before IS NULL OR o.not_before <= ?)
                ORDER BY o.id LIMIT ?
                """,
            arguments: [after, through, dueBy, limit])
        let pushIDs = Set(rows.map { $0[6] as Int64 })
        var pushes: [Int64: OutboxPush] = [:]
        if !pushIDs.isEmpty {
            let pushRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, collapse_id, push_type, priority, expiration, payload FROM outbox_push
                    WHERE id IN (\(GRDBNotifierStore.placeholders(pushIDs.count)))
                    """,
                arguments: StatementArguments(Array(pushIDs)))
            while let row = try pushRows.next() {
                let id: Int64 = row[0]
                guard let push = try OutboxPush(collapseID: row[1], pushType: row[2], priority: row[3], expiration: row[4], payloadJSON: row[5])
                else { throw DatabaseError(message: "outbox push \(id) holds values this version cannot read") }
                pushes[id] = push
            }
        }
        return try rows.map { row in
            let id: Int64 = row[0]
            guard let box = GeoBox(key: row[2]), let night = LocalDate(compactNumber: row[3]),
                let level = FrostLevel(rawValue: row[4]), let kind = AlertKind(rawValue: row[5]),
                let push = pushes[row[6]]
            else { throw DatabaseError(message: "outbox row \(id) holds values this version cannot read") }
            let token = DeviceToken(trusted: row[1])
            let event = FrostEvent(box: box, night: night, level: level)
            let environment: String? = row[9]
            let notification = push.notification(
                token: token, event: event, storedMessageID: row[7], platform: DevicePlatform(rawValue: row[12]) ?? .ios, app: row[8],
                environment: environment.flatMap(PushEnvironment.init(rawValue:)))
            return OutboxEntry(
                id: id, event: event, kind: kind, notification: notification, attempts: row[10], createdAt: row[11],
                notBefore: row[13], frostStartsAt: row[14])
        }
    }

}
