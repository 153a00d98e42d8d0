import FrostboxCore
import GRDB

/// The `QuotaLedger` on SQLite. Each reservation is one write transaction that reads the
/// last day's charges, decides with `QuotaBudgets.decide`, and inserts the charge, so two
/// runs (or two processes) sharing the file can never overspend together. Charges are
/// durable before the request starts, so the ledger survives restarts and crashes; a
/// charge whose process died keeps its full reserved weight.
public struct GRDBQuotaLedger: QuotaLedger {
    let database: FrostboxDatabase
    public let budgets: QuotaBudgets

    public init(database: FrostboxDatabase, budgets: QuotaBudgets = .openMeteoFree) {
        self.database = database
        self.budgets = budgets
    }

    public func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64, share: QuotaShare?) async throws -> QuotaGrant {
        let budgets = budgets
        return try await database.write { db in
            if let hold = try QuotaHoldRecord.fetchOne(db, key: 1), hold.until > now {
                return .held(hold.hold)
            }
            // Charges older than the longest window never count again.
            try QuotaChargeRecord
                .filter(QuotaChargeRecord.Columns.at <= now - 2 * QuotaBudgets.longestWindowSeconds)
                .deleteAll(db)
            let charges = try Self.recentCharges(db, at: now)
            switch budgets.decide(units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, charges: charges, at: now, share: share) {
            case .exhausted(let retryAfter):
                return .exhausted(retryAfter: retryAfter)
            case .fits(let count):
                var record = QuotaChargeRecord(
                    id: nil, at: now, weight: Double(count) * weightPerUnit, locations: count, settled: false, purpose: share?.purpose)
                try record.insert(db)
                return .granted(QuotaReservation(id: record.id ?? 0, units: count, weight: record.weight, at: now))
            }
        }
    }

    public func settle(_ reservation: QuotaReservation, weight: Double) async throws {
        _ = try await database.write { db in
            try QuotaChargeRecord
                .filter(QuotaChargeRecord.Columns.id == reservation.id)
                .updateAll(db, QuotaChargeRecord.Columns.weight.set(to: max(0, weight)), QuotaChargeRecord.Columns.settled.set(to: true))
        }
    }

    public func usage(at now: Int64) async throws -> QuotaUsage {
        let budgets = budgets
        return try await database.pool.read { db in
            budgets.usage(of: try Self.recentCharges(db, at: now), at: now)
        }
    }

    public func hold(_ hold: QuotaHold, at now: Int64) async throws {
        try await database.write { db in
            // A later pause never shortens one already in force.
            if let existing = try QuotaHoldRecord.fetchOne(db, key: 1), existing.until >= hold.until { return }
            try QuotaHoldRecord(until: hold.until, reason: hold.reason, setAt: now).upsert(db)
        }
    }

    public func activeHold(at now: Int64) async throws -> QuotaHold? {
        try await database.pool.read { db in
            try QuotaHoldRecord.fetchOne(db, key: 1).flatMap { $0.until > now ? $0.hold : nil }
        }
    }

    static func recentCharges(_ db: Database, at now: Int64) throws -> [QuotaCharge] {
        try QuotaChargeRecord
            .filter(QuotaChargeRecord.Columns.at > now - QuotaBudgets.longestWindowSeconds)
            .order(QuotaChargeRecord.Columns.at)
            .fetchAll(db)
            .map(\.charge)
    }
}
