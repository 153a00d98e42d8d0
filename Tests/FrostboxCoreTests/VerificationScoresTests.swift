import FrostboxCore
import Testing

/// Issue #48's scores on hand-counted nights.
@Suite("Verification scores")
struct VerificationScoresTests {
    static let thresholds = FrostThresholds()  // 3, 0, −2 °C
    static let night = LocalDate(year: 2026, month: 11, day: 20)
    static let finland = VerificationRegion(countryCode: "FI", admin1Code: "18")

    static func night(
        _ alerted: FrostLevel, observed: Double, forecast: Double? = nil, chance: Double? = nil, weight: Double = 1, stratum: String = "all"
    )
        -> VerifiedNight
    {
        VerifiedNight(
            night: night, region: finland, alertedLevel: alerted, forecastMinimumC: forecast, probabilities: chance.map { [.freeze: $0] } ?? [:],
            observedMinimumC: observed, weight: weight, stratum: stratum)
    }

    static func close(_ a: Double?, _ b: Double, within: Double = 1e-9) -> Bool { a.map { abs($0 - b) <= within } ?? false }

    @Test("hits, misses, false alarms and correct negatives per level as counted by hand, a low exactly at a threshold counting")
    func contingency() throws {
        let nights = [
            Self.night(.freeze, observed: -1),  // freeze hit, frost-risk hit, hard-freeze correct negative
            Self.night(.freeze, observed: 2),  // freeze false alarm, frost-risk hit
            Self.night(.none, observed: -3),  // a miss at every level
            Self.night(.none, observed: 5),  // correct negative everywhere
            Self.night(.hardFreeze, observed: -2),  // hit everywhere: −2 is at the hard-freeze threshold
            Self.night(.frostRisk, observed: 0.5),  // frost-risk hit, negative for the colder two
        ]
        let scores = VerificationScores(nights, thresholds: Self.thresholds)
        #expect(scores.nights == 6 && scores.weight == 6)
        let byLevel = Dictionary(uniqueKeysWithValues: scores.levels.map { ($0.level, $0) })
        let expected: [FrostLevel: (h: Double, m: Double, f: Double, c: Double, pod: Double, far: Double, csi: Double, bias: Double)] = [
            .frostRisk: (4, 1, 0, 1, 0.8, 0, 0.8, 0.8),
            .freeze: (2, 1, 1, 2, 2.0 / 3, 1.0 / 3, 0.5, 1),
            .hardFreeze: (1, 1, 0, 4, 0.5, 0, 0.5, 0.5),
        ]
        for (level, want) in expected {
            let got = try #require(byLevel[level])
            #expect(got.hits == .exact(want.h) && got.misses == .exact(want.m), "\(level)")
            #expect(got.falseAlarms == .exact(want.f) && got.correctNegatives == .exact(want.c), "\(level)")
            for (name, score, value) in [("pod", got.pod, want.pod), ("far", got.far, want.far), ("csi", got.csi, want.csi), ("bias", got.bias, want.bias)] {
                // Every night checked: each score is exact, its interval a point.
                let score = try #require(score, "\(level) \(name)")
                #expect(Self.close(score.value, value) && Self.close(score.low, value) && Self.close(score.high, value), "\(level) \(name): \(score)")
            }
        }
        // No alert and no frost at all: the ratios have no denominator.
        let calm = VerificationScores([Self.night(.none, observed: 8)], thresholds: Self.thresholds)
        #expect(calm.levels.allSatisfy { $0.pod == nil && $0.far == nil && $0.csi == nil && $0.bias == nil })
    }

    @Test("the Brier score and reliability bins of the chances, and the mean error of the forecast low")
    func brierAndReliability() throws {
        let nights = [
            Self.night(.freeze, observed: -1, forecast: -2, chance: 0.9),
            Self.night(.freeze, observed: 1, forecast: -1, chance: 0.9),
            Self.night(.none, observed: 4, forecast: 3, chance: 0.2),
            Self.night(.none, observed: 6, forecast: 6, chance: 0),
            Self.night(.hardFreeze, observed: -4, chance: 1),
        ]
        let scores = VerificationScores(nights, thresholds: Self.thresholds)
        let freeze = try #require(scores.levels.first { $0.level == .freeze })
        // (0.1² + 0.9² + 0.2² + 0 + 0) / 5
        #expect(Self.close(freeze.brier, 0.172))
        #expect(freeze.probabilityNights == 5)
        #expect(freeze.reliability.map(\.lower) == [0, 0.2, 0.9])
        let top = try #require(freeze.reliability.last)
        #expect(top.nights == 3 && Self.close(top.meanProbability, 2.8 / 3) && Self.close(top.observedFrequency, 2.0 / 3))
        #expect(freeze.reliability[1].observedFrequency == 0 && freeze.reliability[1].meanProbability == 0.2)
        // Levels without chances have no Brier score.
        #expect(scores.levels.first { $0.level == .frostRisk }?.brier == nil)
        // (−2 − −1) + (−1 − 1) + (3 − 4) + 0, over the four nights with a forecast low.
        #expect(scores.errorNights == 4 && Self.close(scores.meanErrorC, -1))
    }

    @Test("a sampled stratum is weighted back to the whole, with a 95 % interval from its sample")
    func weightedSample() throws {
        // Ten alerted nights, all checked: 8 froze. A hundred nights without an alert, 10 of them
        // sampled (each standing for 10): 2 froze.
        var nights = (0..<10).map { Self.night(.freeze, observed: $0 < 8 ? -1 : 2, stratum: "alerted") }
        nights += (0..<10).map { Self.night(.none, observed: $0 < 2 ? -1 : 4, weight: 10, stratum: "FI") }
        let freeze = try #require(VerificationScores(nights, thresholds: Self.thresholds).levels.first { $0.level == .freeze })
        #expect(freeze.hits == .exact(8) && freeze.falseAlarms == .exact(2))
        // M = 20; Var = 100² × (1 − 10/100) × (0.2 × 0.8 × 10/9) / 10 = 160; ±1.96 × √160 = ±24.79, not below the 2 seen.
        #expect(freeze.misses.value == 20)
        #expect(freeze.misses.low == 2)
        #expect(Self.close(freeze.misses.high, 20 + 1.959964 * 160.0.squareRoot(), within: 1e-6))
        #expect(freeze.correctNegatives.value == 80)
        let pod = try #require(freeze.pod)
        #expect(Self.close(pod.value, 8.0 / 28))
        #expect(Self.close(pod.low, 8 / (8 + freeze.misses.high)) && Self.close(pod.high, 0.8))
        let csi = try #require(freeze.csi)
        #expect(Self.close(csi.value, 8.0 / 30) && csi.low < csi.value && csi.high > csi.value)
        // FAR comes from the census alone: exact.
        #expect(freeze.far == .exact(0.2))
    }

    @Test("the lead of an alert is counted in local days before its night")
    func leads() {
        let night = Self.night
        #expect(AlertLead(sent: night, night: night) == .sameNight)
        #expect(AlertLead(sent: night.next, night: night) == .sameNight)  // after midnight, during the night
        #expect(AlertLead(sent: night.previous, night: night) == .nextNight)
        #expect(AlertLead(sent: night.previous.previous, night: night) == .later)
    }

    @Test("the report groups by country, division, month and lead; lead groups keep FAR alone")
    func report() throws {
        let sweden = VerificationRegion(countryCode: "SE", admin1Code: "26")
        var nights = [Self.night(.freeze, observed: -1), Self.night(.none, observed: -1), Self.night(.freeze, observed: 3)]
        nights[0].lead = .nextNight
        nights[2].lead = .sameNight
        nights[2].region = sweden
        nights[2].night = LocalDate(year: 2026, month: 12, day: 1)
        let report = VerificationReport(nights, thresholds: Self.thresholds)
        #expect(report.overall.nights == 3)
        #expect(report.countries.map(\.key) == ["FI", "SE"] && report.countries.map(\.scores.nights) == [2, 1])
        #expect(report.regions.map(\.key) == ["FI.18", "SE.26"])
        #expect(report.months.map(\.key) == ["2026-11", "2026-12"] && report.months.map(\.scores.nights) == [2, 1])
        #expect(report.leads.map(\.key) == ["next-night", "same-night"])
        let sameNight = try #require(report.leads.last?.scores.levels.first { $0.level == .freeze })
        #expect(sameNight.far == .exact(1) && sameNight.pod == nil && sameNight.csi == nil && sameNight.bias == nil)
    }
}
