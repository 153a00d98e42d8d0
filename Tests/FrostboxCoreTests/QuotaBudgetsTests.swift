import FrostboxCore
import Testing

@Suite("Quota budgets")
struct QuotaBudgetsTests {
    let budgets = QuotaBudgets()

    @Test("usage counts each charge in the windows it falls in")
    func usage() {
        let now: Int64 = 100_000
        let charges = [
            QuotaCharge(at: now, weight: 1), QuotaCharge(at: now - 59, weight: 2), QuotaCharge(at: now - 60, weight: 4),
            QuotaCharge(at: now - 3_599, weight: 8), QuotaCharge(at: now - 3_600, weight: 16), QuotaCharge(at: now - 86_400, weight: 32),
        ]
        let usage = budgets.usage(of: charges, at: now)
        #expect(usage.lastMinute == 3)
        #expect(usage.lastHour == 15)
        #expect(usage.lastDay == 31)
    }

    @Test("a batch is packed to what every window still allows")
    func packs() {
        let now: Int64 = 100_000
        #expect(budgets.decide(units: 1_000, weightPerUnit: 1, charges: [], at: now) == .fits(units: 600))
        #expect(budgets.decide(units: 1_000, weightPerUnit: 1, charges: [QuotaCharge(at: now - 10, weight: 500)], at: now) == .fits(units: 100))
        #expect(budgets.decide(units: 50, weightPerUnit: 1, charges: [QuotaCharge(at: now - 10, weight: 500)], at: now) == .fits(units: 50))
        #expect(budgets.decide(units: 1_000, weightPerUnit: 2, charges: [], at: now) == .fits(units: 300))
        let day = [QuotaCharge(at: now - 7_200, weight: 9_990)]
        #expect(budgets.decide(units: 1_000, weightPerUnit: 1, charges: day, at: now) == .fits(units: 10))
    }

    @Test("when not even the minimum fits: the second it will")
    func exhausted() {
        let now: Int64 = 100_000
        let minute = [QuotaCharge(at: now - 20, weight: 400), QuotaCharge(at: now - 10, weight: 200)]
        #expect(budgets.decide(units: 10, weightPerUnit: 1, charges: minute, at: now) == .exhausted(retryAfter: now - 20 + 60))
        // Needing all ten, only the 200 leaving helps if the 400 left first: both must leave.
        #expect(budgets.decide(units: 10, weightPerUnit: 1, minimumUnits: 10, charges: minute, at: now) == .exhausted(retryAfter: now - 20 + 60))
        let day = [QuotaCharge(at: now - 80_000, weight: 6_000), QuotaCharge(at: now - 10_000, weight: 4_000)]
        #expect(budgets.decide(units: 1, weightPerUnit: 1, charges: day, at: now) == .exhausted(retryAfter: now - 80_000 + 86_400))
    }

    @Test("a minimum heavier than a budget never fits")
    func never() {
        #expect(budgets.decide(units: 700, weightPerUnit: 1, minimumUnits: 700, charges: [], at: 0) == .exhausted(retryAfter: nil))
        #expect(QuotaBudgets(perMinute: 0).decide(units: 1, weightPerUnit: 1, charges: [], at: 0) == .exhausted(retryAfter: nil))
    }

    @Test("freshness: fresh for the TTL after the fetch, not after")
    func freshness() {
        let freshness = ForecastFreshness(ttlSeconds: 3_600)
        #expect(freshness.isFresh(fetchedAt: 1_000, now: 1_000))
        #expect(freshness.isFresh(fetchedAt: 1_000, now: 4_599))
        #expect(!freshness.isFresh(fetchedAt: 1_000, now: 4_600))
    }
}

@Suite("Quota budgets with skewed clocks")
struct QuotaSkewTests {
    @Test("a charge stamped after now still counts: no overspend when clocks disagree")
    func futureCharges() {
        let budgets = QuotaBudgets(perMinute: 100)
        let charges = [QuotaCharge(at: 1_010, weight: 100)]
        #expect(budgets.usage(of: charges, at: 1_000).lastMinute == 100)
        #expect(budgets.decide(units: 1, weightPerUnit: 1, charges: charges, at: 1_000) == .exhausted(retryAfter: 1_070))
    }
}
