import FrostboxCore
import Synchronization

/// A `QuotaLedger` in memory, deciding with the same `QuotaBudgets.decide` as the SQLite one.
public final class InMemoryQuotaLedger: QuotaLedger {
    private struct State {
        var charges: [Int64: (charge: QuotaCharge, settled: Bool)] = [:]
        var nextID: Int64 = 1
        var hold: QuotaHold?
    }

    public let budgets: QuotaBudgets
    private let state = Mutex(State())

    public init(budgets: QuotaBudgets = .openMeteoFree, charges: [QuotaCharge] = []) {
        self.budgets = budgets
        state.withLock { state in
            for charge in charges {
                state.charges[state.nextID] = (charge, true)
                state.nextID += 1
            }
        }
    }

    public func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64, share: QuotaShare?) async throws -> QuotaGrant {
        state.withLock { state in
            if let hold = state.hold, hold.until > now { return .held(hold) }
            let charges = state.charges.values.map(\.charge)
            switch budgets.decide(units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, charges: charges, at: now, share: share) {
            case .exhausted(let retryAfter):
                return .exhausted(retryAfter: retryAfter)
            case .fits(let count):
                let id = state.nextID
                state.nextID += 1
                let weight = Double(count) * weightPerUnit
                state.charges[id] = (QuotaCharge(at: now, weight: weight, purpose: share?.purpose), false)
                return .granted(QuotaReservation(id: id, units: count, weight: weight, at: now))
            }
        }
    }

    public func settle(_ reservation: QuotaReservation, weight: Double) async throws {
        state.withLock { state in
            guard let entry = state.charges[reservation.id] else { return }
            // As the SQLite ledger does: a weight below zero is no weight.
            state.charges[reservation.id] = (QuotaCharge(at: entry.charge.at, weight: max(0, weight), purpose: entry.charge.purpose), true)
        }
    }

    public func usage(at now: Int64) async throws -> QuotaUsage {
        budgets.usage(of: state.withLock { $0.charges.values.map(\.charge) }, at: now)
    }

    public func hold(_ hold: QuotaHold, at now: Int64) async throws {
        state.withLock { state in
            if let existing = state.hold, existing.until >= hold.until { return }
            state.hold = hold
        }
    }

    public func activeHold(at now: Int64) async throws -> QuotaHold? {
        state.withLock { state in state.hold.flatMap { $0.until > now ? $0 : nil } }
    }

    /// Every charge, oldest first, with whether it was settled.
    public var charges: [(charge: QuotaCharge, settled: Bool)] {
        state.withLock { $0.charges.sorted { $0.key < $1.key }.map(\.value) }
    }
}
