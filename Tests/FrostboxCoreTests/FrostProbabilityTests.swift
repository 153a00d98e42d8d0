import FrostboxCore
import Testing

/// The chance of frost from an ensemble (issue #47): the share of members, or a mean and a
/// spread under a normal assumption, over the night window the frost rule uses.
@Suite("Chance of frost from ensembles")
struct FrostProbabilityTests {
    let rule = FrostRule.default
    let night = LocalDate(year: 2026, month: 11, day: 27)

    /// Hours from 12:00 on `night` to 12:00 the next day at UTC+2, with no temperature.
    func hours(offset: Int64 = 7_200) -> [ForecastHour] {
        let start = LocalDateTime(date: night, hour: 12).wallClockSeconds - offset
        return (0..<24).map { index in
            let time = start + Int64(index) * 3_600
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: nil)
        }
    }

    /// A member at 8 °C all night except `low` at 05:00 the next morning.
    func member(low: Double?, hours: [ForecastHour]) -> [Double?] {
        hours.map { $0.local.date == night.next && $0.local.hour == 5 ? low : 8 }
    }

    @Test("members: the share at or below each threshold, a member exactly at the threshold counted")
    func membersWithTies() throws {
        let hours = hours()
        // Ten members: minima 0 (the freeze threshold exactly), −2 (hard freeze exactly), and others.
        let lows: [Double] = [-2, -2, 0, 0, 0, 0.1, 2.9, 3, 5, 7]
        let ensemble = EnsembleForecast(hours: hours, values: .members(lows.map { member(low: $0, hours: hours) }), model: "icon_seamless")
        let result = rule.probabilities(of: ensemble)
        let tonight = try #require(result.first { $0.night == night })
        #expect(tonight.members == 10)
        #expect(tonight.byLevel[.hardFreeze] == 0.2)
        #expect(tonight.byLevel[.freeze] == 0.5)
        #expect(tonight.byLevel[.frostRisk] == 0.8)
        #expect(tonight.memberMinima == lows)
        #expect(tonight.level(reaching: 0.5) == .freeze)
        #expect(tonight.level(reaching: 0.9) == .none)
        #expect(tonight.level(reaching: 0.2) == .hardFreeze)
    }

    @Test("members: a member with no temperature in the window is left out, not counted as warm; a night nobody covers is left out")
    func missingMembers() throws {
        let hours = hours()
        let members: [[Double?]] = [member(low: -3, hours: hours), hours.map { _ in nil }, member(low: 4, hours: hours)]
        let result = rule.probabilities(of: EnsembleForecast(hours: hours, values: .members(members), model: "m"))
        let tonight = try #require(result.first { $0.night == night })
        #expect(tonight.members == 2)
        #expect(tonight.byLevel[.freeze] == 0.5)
        let none = rule.probabilities(of: EnsembleForecast(hours: hours, values: .members([hours.map { _ in nil }]), model: "m"))
        #expect(none.isEmpty)
    }

    @Test("the window crosses midnight: 23:00 and 09:00 count for the night, 10:00 and 17:00 do not")
    func windowAcrossMidnight() throws {
        let hours = hours()
        func single(at date: LocalDate, hour: Int) -> Double? {
            let values: [Double?] = hours.map { $0.local.date == date && $0.local.hour == hour ? -5 : 8 }
            let ensemble = EnsembleForecast(hours: hours, values: .members([values]), model: "m")
            return rule.probabilities(of: ensemble).first { $0.night == night }?.byLevel[.hardFreeze]
        }
        #expect(single(at: night, hour: 23) == 1)
        #expect(single(at: night.next, hour: 9) == 1)
        #expect(single(at: night.next, hour: 10) == 0)
        #expect(single(at: night, hour: 17) == nil || single(at: night, hour: 17) == 0)
    }

    @Test("a DST night has its extra hour: a member cold only in the repeated 03:00 counts")
    func dstNight() throws {
        // Helsinki, 25 October 2026: 04:00 EEST becomes 03:00 EET, so 03:00 comes twice.
        let dstNight = LocalDate(year: 2026, month: 10, day: 24)
        let start = LocalDateTime(date: dstNight, hour: 18).wallClockSeconds - 10_800
        let change = LocalDateTime(date: dstNight.next, hour: 4).wallClockSeconds - 10_800
        let hours = (0..<17).map { index -> ForecastHour in
            let time = start + Int64(index) * 3_600
            let offset: Int64 = time < change ? 10_800 : 7_200
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: nil)
        }
        #expect(hours.filter { $0.local.hour == 3 }.count == 2)
        let secondThree = try #require(hours.lastIndex { $0.local.hour == 3 })
        let values: [Double?] = hours.indices.map { $0 == secondThree ? -1.0 : 6.0 }
        let result = rule.probabilities(of: EnsembleForecast(hours: hours, values: .members([values, hours.map { _ in 6 }]), model: "m"))
        let tonight = try #require(result.first { $0.night == dstNight })
        #expect(tonight.byLevel[.freeze] == 0.5)
    }

    @Test("mean and spread: the likeliest hour's normal probability; a spread of zero is certain")
    func spread() throws {
        let hours = hours()
        let mean: [Double?] = hours.map { $0.local.date == night.next && $0.local.hour == 5 ? -1.0 : 8.0 }
        let one = rule.probabilities(of: EnsembleForecast(hours: hours, values: .spread(mean: mean, spread: hours.map { _ in 1 }), model: "m"))
        let tonight = try #require(one.first { $0.night == night })
        // P(X ≤ 0) for X ~ N(−1, 1) = Φ(1) ≈ 0.8413; P(X ≤ −2) = Φ(−1) ≈ 0.1587; P(X ≤ 3) = Φ(4) ≈ 0.99997.
        #expect(abs((tonight.byLevel[.freeze] ?? 0) - 0.841_344_7) < 1e-6)
        #expect(abs((tonight.byLevel[.hardFreeze] ?? 0) - 0.158_655_3) < 1e-6)
        #expect((tonight.byLevel[.frostRisk] ?? 0) > 0.9999)
        #expect(tonight.meanAndSpread == MeanAndSpread(mean: -1, spread: 1))
        let zero = rule.probabilities(of: EnsembleForecast(hours: hours, values: .spread(mean: mean, spread: hours.map { _ in 0 }), model: "m"))
        let certain = try #require(zero.first { $0.night == night })
        #expect(certain.byLevel[.freeze] == 1 && certain.byLevel[.hardFreeze] == 0 && certain.byLevel[.frostRisk] == 1)
        #expect(FrostRule.normalProbability(atOrBelow: 0, mean: 0, spread: 0) == 1)
        #expect(FrostRule.normalProbability(atOrBelow: 0, mean: 0, spread: 2) == 0.5)
    }

    @Test("Open-Meteo's ensemble weight: variables × members / 10, times weeks beyond two, at least 1")
    func weights() {
        #expect(EnsembleWeight.perLocation(variables: 1, members: 40, days: 7) == 4.0)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 51, days: 7) == 5.1)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 31, days: 7) == 3.1)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 20, days: 7) == 2.0)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 1, days: 7) == 1)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 40, days: 14) == 4.0)
        #expect(EnsembleWeight.perLocation(variables: 1, members: 40, days: 28) == 8.0)
        #expect(abs(EnsembleWeight.perLocation(variables: 2, members: 51, days: 21) - 15.3) < 1e-9)
    }
}
