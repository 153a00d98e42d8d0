import FrostboxCore
import GRDB

extension GRDBNotifierStore: DeviceVerificationStore {
    public func pendingDevices(after: DeviceToken?, limit: Int) async throws -> [PendingDevice] {
        try await database.pool.read { db in
            // The partial index `device_pending` holds exactly these rows, by token.
            try Self.pending(
                db, where: "verified_at IS NULL AND token > ?", order: "token", arguments: [after?.value ?? "", max(0, limit)])
        }
    }

    public func pendingDevices(createdBefore: Int64, limit: Int) async throws -> [PendingDevice] {
        try await database.pool.read { db in
            try Self.pending(
                db, where: "verified_at IS NULL AND created_at < ?", order: "created_at, token", arguments: [createdBefore, max(0, limit)])
        }
    }

    public func markVerified(_ tokens: [DeviceToken], at now: Int64) async throws {
        guard !tokens.isEmpty else { return }
        try await database.writeTransaction { db in
            let update = try db.cachedStatement(sql: "UPDATE device SET verified_at = ? WHERE token = ? AND verified_at IS NULL")
            for token in tokens { try update.execute(arguments: [now, token.value]) }
        }
    }

    @discardableResult
    public func purgePendingDevices(createdBefore: Int64) async throws -> Int {
        // Subscriptions go with each device (ON DELETE CASCADE), its outbox rows by the trigger
        // `outbox_of_deleted_device`.
        try await database.writeTransaction { db in
            try db.execute(sql: "DELETE FROM device WHERE verified_at IS NULL AND created_at < ?", arguments: [createdBefore])
            return db.changesCount
        }
    }

    public func verificationCounts() async throws -> VerificationCounts {
        try await database.pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT p.pending,
                           -- No pending device: every box has a verified one, no scan needed.
                           CASE WHEN p.pending = 0 THEN 0 ELSE
                               (SELECT count(*) FROM (SELECT DISTINCT box FROM subscription) AS s
                                WHERE NOT EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token
                                                  WHERE v.box = s.box AND d.verified_at IS NOT NULL)) END
                    FROM (SELECT count(*) AS pending FROM device WHERE verified_at IS NULL) AS p
                    """)
            return VerificationCounts(pendingDevices: row?[0] ?? 0, boxesAwaitingVerification: row?[1] ?? 0)
        }
    }

    private static func pending(
        _ db: Database, where condition: String, order: String, arguments: StatementArguments
    ) throws
        -> [PendingDevice]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT token, platform, app, environment, created_at, registered_at FROM device
                WHERE \(condition) ORDER BY \(order) LIMIT ?
                """, arguments: arguments
        ).map { row in
            let token = DeviceToken(trusted: row[0])
            return PendingDevice(
                token: token, platform: DevicePlatform(rawValue: row[1]) ?? token.formPlatform, app: row[2],
                environment: (row[3] as String?).flatMap(PushEnvironment.init(rawValue:)), createdAt: row[4], registeredAt: row[5])
        }
    }
}
