import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `QuotaLedger`: the SQLite one and the in-memory double.
enum QuotaLedgerImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    /// A fresh, empty ledger enforcing `budgets`, its files (if any) in `directory`.
    func make(_ budgets: QuotaBudgets, in directory: TemporaryDirectory) async throws -> any QuotaLedger {
        switch self {
        case .postgres: PostgresQuotaLedger(database: try await ContractPostgres.freshDatabase(), budgets: budgets)
        case .grdb: GRDBQuotaLedger(database: try FrostboxDatabase(path: directory.databasePath), budgets: budgets)
        case .inMemory: InMemoryQuotaLedger(budgets: budgets)
        }
    }
}

@Suite("QuotaLedger contract: every implementation charges, settles and holds alike", .backgroundWorkScoped)
struct QuotaLedgerContract {
    static let now: Int64 = 1_774_000_000
    static let small = QuotaBudgets(perMinute: 100, perHour: 1_000, perDay: 2_000)

    /// The reservation of a grant, or a recorded issue.
    static func granted(_ grant: QuotaGrant, sourceLocation: SourceLocation = #_sourceLocation) -> QuotaReservation? {
        if case .granted(let reservation) = grant { return reservation }
        Issue.record("expected a grant, got \(grant)", sourceLocation: sourceLocation)
        return nil
    }

    @Test("a reservation is packed to the tightest window and charged at once", arguments: QuotaLedgerImplementation.available)
    func packsAndCharges(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        let reservation = try #require(Self.granted(try await ledger.reserve(units: 250, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        #expect(reservation.units == 100)
        #expect(reservation.weight == 100)
        #expect(reservation.at == Self.now)
        let usage = try await ledger.usage(at: Self.now)
        #expect(usage == QuotaUsage(lastMinute: 100, lastHour: 100, lastDay: 100, budgets: Self.small))
    }

    @Test("a minimum that does not fit is refused, nothing charged, with the second it will fit", arguments: QuotaLedgerImplementation.available)
    func refusesWithRetryAfter(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        _ = try #require(Self.granted(try await ledger.reserve(units: 90, weightPerUnit: 1, minimumUnits: 90, at: Self.now)))
        #expect(try await ledger.reserve(units: 20, weightPerUnit: 1, minimumUnits: 20, at: Self.now + 10) == .exhausted(retryAfter: Self.now + 60))
        #expect(try await ledger.usage(at: Self.now + 10).lastMinute == 90)
        // More than a budget on its own never fits.
        #expect(try await ledger.reserve(units: 200, weightPerUnit: 1, minimumUnits: 200, at: Self.now + 10) == .exhausted(retryAfter: nil))
        let later = try #require(Self.granted(try await ledger.reserve(units: 20, weightPerUnit: 1, minimumUnits: 20, at: Self.now + 60)))
        #expect(later.units == 20)
    }

    @Test("settling replaces the reserved weight: 0 for a request that never left, clamped at 0", arguments: QuotaLedgerImplementation.available)
    func settleReplacesWeight(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        let a = try #require(Self.granted(try await ledger.reserve(units: 40, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        let b = try #require(Self.granted(try await ledger.reserve(units: 30, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        let c = try #require(Self.granted(try await ledger.reserve(units: 20, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        try await ledger.settle(a, weight: 1)
        try await ledger.settle(b, weight: 0)
        try await ledger.settle(c, weight: -5)
        #expect(try await ledger.usage(at: Self.now).lastDay == 1)
        // The room the settlement gave back is there for the next reservation.
        let next = try #require(Self.granted(try await ledger.reserve(units: 500, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        #expect(next.units == 99)
    }

    @Test("settling a reservation the ledger does not know changes nothing", arguments: QuotaLedgerImplementation.available)
    func settleUnknown(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        _ = try #require(Self.granted(try await ledger.reserve(units: 10, weightPerUnit: 1, minimumUnits: 1, at: Self.now)))
        try await ledger.settle(QuotaReservation(id: 9_999, units: 10, weight: 10, at: Self.now), weight: 0)
        #expect(try await ledger.usage(at: Self.now).lastDay == 10)
    }

    @Test(
        "windows slide: a charge leaves the minute after 60 s, the hour after 3,600 s, the day after 86,400 s", arguments: QuotaLedgerImplementation.available)
    func windowsSlide(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        _ = try #require(Self.granted(try await ledger.reserve(units: 50, weightPerUnit: 2, minimumUnits: 1, at: Self.now)))
        let budgets = Self.small
        #expect(try await ledger.usage(at: Self.now + 59) == QuotaUsage(lastMinute: 100, lastHour: 100, lastDay: 100, budgets: budgets))
        #expect(try await ledger.usage(at: Self.now + 60) == QuotaUsage(lastMinute: 0, lastHour: 100, lastDay: 100, budgets: budgets))
        #expect(try await ledger.usage(at: Self.now + 3_600) == QuotaUsage(lastMinute: 0, lastHour: 0, lastDay: 100, budgets: budgets))
        #expect(try await ledger.usage(at: Self.now + 86_400) == QuotaUsage(lastMinute: 0, lastHour: 0, lastDay: 0, budgets: budgets))
        // A charge stamped after the moment asked about (another process's clock) is spent all the same.
        #expect(try await ledger.usage(at: Self.now - 10).lastMinute == 100)
    }

    @Test("fractional weights pack exactly: 0.4 × 10 fits a budget of 4", arguments: QuotaLedgerImplementation.available)
    func fractionalWeights(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(QuotaBudgets(perMinute: 4, perHour: 100, perDay: 100), in: directory)
        let reservation = try #require(Self.granted(try await ledger.reserve(units: 25, weightPerUnit: 0.4, minimumUnits: 1, at: Self.now)))
        #expect(reservation.units == 10)
        #expect(abs(reservation.weight - 4) < 1e-9)
    }

    @Test("a hold refuses every reservation until it ends, charging nothing; a shorter one never cuts it", arguments: QuotaLedgerImplementation.available)
    func holds(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        let daily = QuotaHold(until: Self.now + 600, reason: "Daily API request limit exceeded.")
        try await ledger.hold(daily, at: Self.now)
        try await ledger.hold(QuotaHold(until: Self.now + 60, reason: "Minutely API request limit exceeded."), at: Self.now)
        #expect(try await ledger.activeHold(at: Self.now + 599) == daily)
        #expect(try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 100) == .held(daily))
        #expect(try await ledger.usage(at: Self.now + 100).lastDay == 0)
        #expect(try await ledger.activeHold(at: Self.now + 600) == nil)
        _ = try #require(Self.granted(try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 600)))
        // A longer hold replaces the one in force.
        let longer = QuotaHold(until: Self.now + 7_200, reason: "Hourly API request limit exceeded.")
        try await ledger.hold(QuotaHold(until: Self.now + 700, reason: "first"), at: Self.now + 600)
        try await ledger.hold(longer, at: Self.now + 650)
        #expect(try await ledger.activeHold(at: Self.now + 650) == longer)
    }

    @Test("zero units or zero weight are granted without charging anything", arguments: QuotaLedgerImplementation.available)
    func nothingToCharge(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        let reservation = try #require(Self.granted(try await ledger.reserve(units: 5, weightPerUnit: 0, minimumUnits: 1, at: Self.now)))
        #expect(reservation.weight == 0)
        #expect(try await ledger.usage(at: Self.now).lastDay == 0)
    }

    @Test(
        "a share's reservations fit its own budgets against its own charges, kept across reads, and count in the whole",
        arguments: QuotaLedgerImplementation.available)
    func share(_ implementation: QuotaLedgerImplementation) async throws {
        let directory = try TemporaryDirectory()
        let ledger = try await implementation.make(Self.small, in: directory)
        let share = QuotaShare(purpose: "verification", fraction: 0.1)
        // The share's minute is 10.
        let first = try #require(Self.granted(try await ledger.reserve(units: 50, weightPerUnit: 1, minimumUnits: 1, at: Self.now, share: share)))
        #expect(first.units == 10)
        #expect(try await ledger.reserve(units: 1, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 1, share: share) == .exhausted(retryAfter: Self.now + 60))
        // Forecasts have the rest of the minute: 90.
        let forecasts = try #require(Self.granted(try await ledger.reserve(units: 500, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 1)))
        #expect(forecasts.units == 90)
        // A settled share charge keeps its purpose: a minute on, the share's hour (100) has 90 left.
        try await ledger.settle(first, weight: 10)
        let later = try #require(Self.granted(try await ledger.reserve(units: 500, weightPerUnit: 1, minimumUnits: 1, at: Self.now + 3_000, share: share)))
        #expect(later.units == 10)
        #expect(try await ledger.usage(at: Self.now + 3_000).lastHour == 110)
    }
}
