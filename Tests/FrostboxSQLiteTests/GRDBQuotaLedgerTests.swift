import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import Testing

@Suite("GRDBQuotaLedger on a real SQLite file")
struct GRDBQuotaLedgerTests {
    let directory: TemporaryDirectory
    static let now: Int64 = 1_774_000_000

    init() throws {
        directory = try TemporaryDirectory()
    }

    func open(_ budgets: QuotaBudgets = QuotaBudgets()) throws -> GRDBQuotaLedger {
        GRDBQuotaLedger(database: try FrostboxDatabase(path: directory.databasePath), budgets: budgets)
    }

    @Test("a reservation is packed to the budgets and charged before the request")
    func packs() async throws {
        let ledger = try open()
        guard case .granted(let first) = try await ledger.reserve(units: 1_000, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
            Issue.record("expected a grant")
            return
        }
        #expect(first.units == 600)
        #expect(first.weight == 600)
        #expect(try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 59) == .exhausted(retryAfter: Self.now + 60))
        let usage = try await ledger.usage(at: Self.now)
        #expect(usage.lastMinute == 600)
        #expect(usage.lastDay == 600)
    }

    @Test("the ledger survives a restart: what was spent still counts after reopening the file")
    func survivesRestart() async throws {
        do {
            let ledger = try open(QuotaBudgets(perDay: 500))
            guard case .granted(let reservation) = try await ledger.reserve(units: 400, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
                Issue.record("expected a grant")
                return
            }
            try await ledger.settle(reservation, weight: 400)
        }
        let reopened = try open(QuotaBudgets(perDay: 500))
        #expect(try await reopened.usage(at: Self.now + 3_600).lastDay == 400)
        guard case .granted(let next) = try await reopened.reserve(units: 400, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 3_600) else {
            Issue.record("expected a grant")
            return
        }
        #expect(next.units == 100)
        #expect(try await reopened.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 3_600) == .exhausted(retryAfter: Self.now + 86_400))
    }

    @Test("settling replaces the reserved weight: an error answer counts 1")
    func settle() async throws {
        let ledger = try open()
        guard case .granted(let reservation) = try await ledger.reserve(units: 300, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
            Issue.record("expected a grant")
            return
        }
        try await ledger.settle(reservation, weight: 1)
        #expect(try await ledger.usage(at: Self.now).lastMinute == 1)
    }

    @Test("a pause asked for by the source holds across a restart and is never shortened")
    func holds() async throws {
        do {
            let ledger = try open()
            try await ledger.hold(QuotaHold(until: Self.now + 3_600, reason: "Hourly API request limit exceeded."), at: Self.now)
            try await ledger.hold(QuotaHold(until: Self.now + 60, reason: "Minutely API request limit exceeded."), at: Self.now)
        }
        let ledger = try open()
        let hold = QuotaHold(until: Self.now + 3_600, reason: "Hourly API request limit exceeded.")
        #expect(try await ledger.activeHold(at: Self.now + 100) == hold)
        #expect(try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 100) == .held(hold))
        #expect(try await ledger.activeHold(at: Self.now + 3_600) == nil)
        guard case .granted = try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 3_600) else {
            Issue.record("expected a grant once the pause is over")
            return
        }
    }

    @Test("two ledgers on one file never overspend together")
    func concurrentReservations() async throws {
        let budgets = QuotaBudgets(perMinute: 10_000, perHour: 10_000, perDay: 1_000)
        let a = try open(budgets)
        let b = try open(budgets)
        let grants = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 {
                let ledger = i % 2 == 0 ? a : b
                group.addTask {
                    // Out-of-order clocks too: a later-stamped charge still counts for an earlier one.
                    if case .granted(let r) = try await ledger.reserve(units: 90, weightPerUnit: 1, minimumUnits: 90, at: Self.now + Int64((i * 7) % 20)) {
                        return r.units
                    }
                    return 0
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(grants <= 1_000)
        #expect(grants == 990)
    }

    @Test("a correction is seen by another process on the same file: a request that never left frees its room there")
    func correctionSharedAcrossProcesses() async throws {
        let first = try open(QuotaBudgets(perDay: 100))
        let second = try open(QuotaBudgets(perDay: 100))
        guard case .granted(let reservation) = try await first.reserve(units: 100, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
            Issue.record("expected a grant")
            return
        }
        #expect(try await second.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now) == .exhausted(retryAfter: Self.now + 86_400))
        try await first.settle(reservation, weight: 0)
        #expect(try await second.usage(at: Self.now).lastDay == 0)
        guard case .granted(let other) = try await second.reserve(units: 100, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
            Issue.record("expected the room to be back")
            return
        }
        #expect(other.units == 100)
    }
}
