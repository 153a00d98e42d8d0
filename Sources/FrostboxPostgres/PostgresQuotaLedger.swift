import FrostboxCore
import PostgresNIO

/// The `QuotaLedger` on PostgreSQL: one budget for the whole cluster. A reservation is one
/// transaction holding an advisory lock (so reservations from every instance are decided one
/// after another): it reads the last day's charges, decides with `QuotaBudgets.decide`, and
/// inserts the charge, committed before the request starts.
public struct PostgresQuotaLedger: QuotaLedger {
    let database: PostgresDatabase
    public let budgets: QuotaBudgets
    /// The advisory lock serializing reservations ("FbQuota!" in ASCII).
    static let lockKey: Int64 = 0x4662_5175_6f74_6121

    public init(database: PostgresDatabase, budgets: QuotaBudgets = .openMeteoFree) {
        self.database = database
        self.budgets = budgets
    }

    public func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64, share: QuotaShare?) async throws -> QuotaGrant {
        let budgets = budgets
        let logger = database.logger
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
            if let hold = try await Self.hold(connection, logger: logger), hold.until > now {
                return .held(hold)
            }
            // Charges older than the longest window never count again.
            try await connection.query(
                "DELETE FROM quota_charge WHERE at <= \(now - 2 * QuotaBudgets.longestWindowSeconds)", logger: logger)
            let charges = try await Self.recentCharges(connection, at: now, logger: logger)
            switch budgets.decide(units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, charges: charges, at: now, share: share) {
            case .exhausted(let retryAfter):
                return .exhausted(retryAfter: retryAfter)
            case .fits(let count):
                let weight = Double(count) * weightPerUnit
                let rows = try await connection.query(
                    "INSERT INTO quota_charge (at, weight, locations, purpose) VALUES (\(now), \(weight), \(count), \(share?.purpose)) RETURNING id",
                    logger: logger)
                var id: Int64 = 0
                for try await value in rows.decode(Int64.self) { id = value }
                return .granted(QuotaReservation(id: id, units: count, weight: weight, at: now))
            }
        }
    }

    public func settle(_ reservation: QuotaReservation, weight: Double) async throws {
        try await database.query(
            "UPDATE quota_charge SET weight = \(max(0, weight)), settled = true WHERE id = \(reservation.id)", writes: true)
    }

    public func usage(at now: Int64) async throws -> QuotaUsage {
        let charges = try await database.withConnection { connection in
            try await Self.recentCharges(connection, at: now, logger: database.logger)
        }
        return budgets.usage(of: charges, at: now)
    }

    public func hold(_ hold: QuotaHold, at now: Int64) async throws {
        // A later pause never shortens one already in force.
        try await database.query(
            """
            INSERT INTO quota_hold (id, until, reason, set_at) VALUES (1, \(hold.until), \(hold.reason), \(now))
            ON CONFLICT (id) DO UPDATE SET until = excluded.until, reason = excluded.reason, set_at = excluded.set_at
            WHERE quota_hold.until < excluded.until
            """, writes: true)
    }

    public func activeHold(at now: Int64) async throws -> QuotaHold? {
        let hold = try await database.withConnection { connection in
            try await Self.hold(connection, logger: database.logger)
        }
        return hold.flatMap { $0.until > now ? $0 : nil }
    }

    static func hold(_ connection: PostgresConnection, logger: Logger) async throws -> QuotaHold? {
        let rows = try await connection.query("SELECT until, reason FROM quota_hold WHERE id = 1", logger: logger)
        for try await (until, reason) in rows.decode((Int64, String).self) { return QuotaHold(until: until, reason: reason) }
        return nil
    }

    static func recentCharges(_ connection: PostgresConnection, at now: Int64, logger: Logger) async throws -> [QuotaCharge] {
        let rows = try await connection.query(
            "SELECT at, weight, purpose FROM quota_charge WHERE at > \(now - QuotaBudgets.longestWindowSeconds) ORDER BY at, id",
            logger: logger)
        var charges: [QuotaCharge] = []
        for try await (at, weight, purpose) in rows.decode((Int64, Double, String?).self) {
            charges.append(QuotaCharge(at: at, weight: weight, purpose: purpose))
        }
        return charges
    }
}
