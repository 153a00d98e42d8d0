import FrostboxCore
import Testing

/// Issue #48: which due nights are checked, and what each stands for.
@Suite("Night check: the draw and the budget share")
struct NightSamplerTests {
    static let night = LocalDate(year: 2026, month: 11, day: 20)
    static let fi = VerificationRegion(countryCode: "FI", admin1Code: "18")
    static let se = VerificationRegion(countryCode: "SE", admin1Code: "26")

    static func boxes(_ count: Int, from start: Int) -> [GeoBox] {
        (0..<count).map { GeoBox(latitudeIndex: 1_200 + start + $0, longitudeIndex: 500) }
    }

    @Test("every alerted night is chosen at weight 1; of the others, n per region and night, each standing for N / n")
    func stratifiedDraw() {
        let finnish = Self.boxes(100, from: 0)
        let swedish = Self.boxes(7, from: 200)
        var due = finnish.map { DueNight(box: $0, night: Self.night, alertedLevel: .none) }
        due += swedish.map { DueNight(box: $0, night: Self.night, alertedLevel: .none) }
        due += finnish.prefix(3).map { DueNight(box: $0, night: Self.night.next, alertedLevel: .freeze) }
        var regions = Dictionary(uniqueKeysWithValues: finnish.map { ($0, Self.fi) })
        for box in swedish { regions[box] = Self.se }
        let choices = NightSampler.choose(due, regions: regions, perStratum: 10)
        #expect(choices.count == due.count)
        let alerted = choices.filter { $0.stratum == NightSampler.censusStratum }
        #expect(alerted.count == 3 && alerted.allSatisfy { $0.chosen && $0.weight == 1 && $0.region == Self.fi })
        let fiDrawn = choices.filter { $0.region == Self.fi && $0.night == Self.night && $0.chosen }
        #expect(fiDrawn.count == 10 && fiDrawn.allSatisfy { $0.weight == 10 })
        #expect(choices.filter { $0.region == Self.fi && $0.night == Self.night && !$0.chosen }.allSatisfy { $0.weight == 0 })
        // A stratum smaller than n is checked whole, each night standing for itself.
        let seDrawn = choices.filter { $0.region == Self.se && $0.chosen }
        #expect(seDrawn.count == 7 && seDrawn.allSatisfy { $0.weight == 1 })
        // The weights add up to the nights not alerted: the sample stands for the whole.
        #expect(choices.filter { $0.stratum != NightSampler.censusStratum }.reduce(0) { $0 + $1.weight } == 107)
        // Drawing again draws the same nights, whatever the order they came in.
        let again = NightSampler.choose(due.reversed(), regions: regions, perStratum: 10)
        #expect(Set(again.filter(\.chosen).map(\.box)) == Set(choices.filter(\.chosen).map(\.box)))
        // Another night draws the same boxes (a panel), so their nights share a location.
        let tomorrow = NightSampler.choose(
            finnish.map { DueNight(box: $0, night: Self.night.next, alertedLevel: .none) }, regions: regions, perStratum: 10)
        #expect(Set(tomorrow.filter(\.chosen).map(\.box)) == Set(fiDrawn.map(\.box)))
        // A box with no region known is drawn in the unknown region's stratum.
        let lost = NightSampler.choose([DueNight(box: finnish[0], night: Self.night, alertedLevel: .none)], regions: [:], perStratum: 1)
        #expect(lost.first?.region == .unknown && lost.first?.chosen == true)
    }

    @Test("a share's charges must fit the share's budgets alone and the whole budgets with everything")
    func budgetShare() {
        let budgets = QuotaBudgets(perMinute: 600, perHour: 5_000, perDay: 10_000)
        let share = QuotaShare(purpose: "verification", fraction: 0.1)
        let now: Int64 = 1_000_000
        // 900 of the share's 1,000 a day already spent: 100 more fit, though the whole budget has room.
        let spent = [QuotaCharge(at: now - 7_200, weight: 900, purpose: "verification")]
        #expect(budgets.decide(units: 500, weightPerUnit: 1, charges: spent, at: now, share: share) == .fits(units: 60))
        // The minute's share is 60: the tightest window decides.
        let old = [QuotaCharge(at: now - 80_000, weight: 950, purpose: "verification")]
        #expect(budgets.decide(units: 500, weightPerUnit: 1, charges: old, at: now, share: share) == .fits(units: 50))
        // Forecast charges do not use the share, but they fill the whole budget it lives in.
        let forecasts = [QuotaCharge(at: now - 600, weight: 4_990)]
        #expect(budgets.decide(units: 500, weightPerUnit: 1, charges: forecasts, at: now, share: share) == .fits(units: 10))
        #expect(budgets.decide(units: 500, weightPerUnit: 1, charges: forecasts, at: now, share: nil) == .fits(units: 10))
        // The share spent: nothing fits until its oldest charge leaves the day.
        let full = [QuotaCharge(at: now - 80_000, weight: 1_000, purpose: "verification")]
        #expect(budgets.decide(units: 1, weightPerUnit: 1, charges: full, at: now, share: share) == .exhausted(retryAfter: now - 80_000 + 86_400))
        #expect(budgets.decide(units: 1, weightPerUnit: 1, charges: full, at: now, share: nil) == .fits(units: 1))
    }

    @Test("an observed night's low is the lowest of its hours, nil while any hour is missing")
    func observedMinimum() {
        let start: Int64 = 1_795_000_000 / 3_600 * 3_600
        let times = (0..<24).map { start + Int64($0) * 3_600 }
        var values: [Double?] = (0..<24).map { Double($0 - 10) }
        let hours = ObservedHours(box: Self.boxes(1, from: 0)[0], times: times, temperaturesC: values)
        #expect(hours.minimum(from: start + 5 * 3_600, to: start + 9 * 3_600) == -5)
        #expect(hours.minimum(from: start + 20 * 3_600, to: start + 30 * 3_600) == nil)
        values[6] = nil
        let gap = ObservedHours(box: hours.box, times: times, temperaturesC: values)
        #expect(gap.minimum(from: start + 5 * 3_600, to: start + 9 * 3_600) == nil)
        #expect(gap.minimum(from: start + 7 * 3_600, to: start + 9 * 3_600) == -3)
    }
}
