import FrostboxCore
import PostgresNIO

extension PostgresNotifierStore: DeviceVerificationStore {
    public func pendingDevices(after: DeviceToken?, limit: Int) async throws -> [PendingDevice] {
        // The partial index `device_pending` holds exactly these rows, by token.
        try await pending(
            database.query(
                """
                SELECT \(unescaped: Self.pendingColumns) FROM device
                WHERE verified_at IS NULL AND token COLLATE "C" > \(after?.value ?? "") ORDER BY token COLLATE "C" LIMIT \(max(0, limit))
                """))
    }

    public func pendingDevices(createdBefore: Int64, limit: Int) async throws -> [PendingDevice] {
        try await pending(
            database.query(
                """
                SELECT \(unescaped: Self.pendingColumns) FROM device
                WHERE verified_at IS NULL AND created_at < \(createdBefore) ORDER BY created_at, token LIMIT \(max(0, limit))
                """))
    }

    public func markVerified(_ tokens: [DeviceToken], at now: Int64) async throws {
        guard !tokens.isEmpty else { return }
        _ = try await database.query(
            "UPDATE device SET verified_at = \(now) WHERE token = ANY(\(tokens.map(\.value))) AND verified_at IS NULL RETURNING id",
            writes: true
        ).collectCount()
    }

    @discardableResult
    public func purgePendingDevices(createdBefore: Int64) async throws -> Int {
        // Subscriptions and outbox rows go with each device: ON DELETE CASCADE.
        try await database.query(
            "DELETE FROM device WHERE verified_at IS NULL AND created_at < \(createdBefore) RETURNING id", writes: true
        ).collectCount()
    }

    public func verificationCounts() async throws -> VerificationCounts {
        let rows = try await database.query(
            """
            SELECT p.pending,
                   -- No pending device: every box has a verified one, no scan needed.
                   CASE WHEN p.pending = 0 THEN 0 ELSE
                       (SELECT count(*) FROM (SELECT DISTINCT box FROM subscription) AS s
                        WHERE NOT EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token
                                          WHERE v.box = s.box AND d.verified_at IS NOT NULL)) END
            FROM (SELECT count(*) AS pending FROM device WHERE verified_at IS NULL) AS p
            """)
        for try await (pending, boxes) in rows.decode((Int64, Int64).self) {
            return VerificationCounts(pendingDevices: Int(pending), boxesAwaitingVerification: Int(boxes))
        }
        return VerificationCounts()
    }

    static let pendingColumns = "token, platform, app, environment, created_at, registered_at"

    private func pending(_ rows: PostgresRows) async throws -> [PendingDevice] {
        var result: [PendingDevice] = []
        for try await (value, platform, app, environment, createdAt, registeredAt) in rows.decode(
            (String, String, String?, String?, Int64, Int64).self)
        {
            let token = DeviceToken(trusted: value)
            result.append(
                PendingDevice(
                    token: token, platform: DevicePlatform(rawValue: platform) ?? token.formPlatform, app: app,
                    environment: environment.flatMap(PushEnvironment.init(rawValue:)), createdAt: createdAt, registeredAt: registeredAt))
        }
        return result
    }
}
