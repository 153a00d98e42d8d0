import Foundation
import FrostboxCore
import Testing

/// Hours as a forecast source gives them: UTC times an hour apart, each with the zone's wall clock.
func series(zone: String, fromUTC start: Int64, temperatures: [Double?], cloud: Double? = 10, wind: Double? = 3) -> [ForecastHour] {
    let timeZone = TimeZone(identifier: zone)!
    return temperatures.enumerated().map { i, temperature in
        let time = start + Int64(i) * 3_600
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time))))
        return ForecastHour(
            time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: temperature, dewPointC: nil,
            cloudCoverPercent: cloud, windSpeedKmh: wind)
    }
}

/// One hour at a wall-clock time (UTC offset 0) with its conditions.
func hour(_ text: String, _ temperature: Double?, cloud: Double? = 10, wind: Double? = 3) -> ForecastHour {
    let local = LocalDateTime(text: text)!
    return ForecastHour(time: local.wallClockSeconds, local: local, temperatureC: temperature, cloudCoverPercent: cloud, windSpeedKmh: wind)
}

@Suite("Frost verdict")
struct FrostVerdictTests {
    @Test(
        "default rule: the level of one night hour from temperature, cloud and wind",
        arguments: [
            (3.0, 40.0, 10.0, FrostLevel.frostRisk),
            (3.0, 41.0, 5.0, .none),
            (3.0, 10.0, 10.1, .none),
            (3.1, 0.0, 0.0, .none),
            (1.0, 0.0, 0.0, .frostRisk),
            (0.0, 100.0, 50.0, .freeze),
            (-1.9, 100.0, 50.0, .freeze),
            (-2.0, 100.0, 50.0, .hardFreeze),
            (-15.0, 0.0, 0.0, .hardFreeze),
        ] as [(Double, Double, Double, FrostLevel)])
    func defaultLevels(temperature: Double, cloud: Double, wind: Double, level: FrostLevel) {
        let verdict = FrostRule.default.evaluate([hour("2025-01-10T03:00", temperature, cloud: cloud, wind: wind)])
        #expect(verdict.level == level)
        #expect(verdict.nights.map(\.night.description) == ["2025-01-09"])
    }

    @Test("default rule: frost risk needs known cloud cover and wind")
    func riskNeedsConditions() {
        #expect(FrostRule.default.evaluate([hour("2025-01-10T03:00", 1, cloud: nil)]).level == .none)
        #expect(FrostRule.default.evaluate([hour("2025-01-10T03:00", 1, wind: nil)]).level == .none)
        #expect(FrostRule.default.evaluate([hour("2025-01-10T03:00", 0, cloud: nil, wind: nil)]).level == .freeze)
    }

    @Test(
        "legacy rule: any hour below 3 °C, day or night, whatever the sky",
        arguments: [
            (2.9, FrostLevel.frostRisk),
            (3.0, .none),
            (0.0, .freeze),
            (-2.0, .hardFreeze),
        ] as [(Double, FrostLevel)])
    func legacyLevels(temperature: Double, level: FrostLevel) {
        let verdict = FrostRule.legacy.evaluate([hour("2025-01-10T14:00", temperature, cloud: 100, wind: 40)])
        #expect(verdict.level == level)
    }

    @Test(
        "the night window is 18:00–10:00 local: an hour's night, or none",
        arguments: [
            ("2025-01-10T17:00", nil),
            ("2025-01-10T18:00", "2025-01-10"),
            ("2025-01-10T23:00", "2025-01-10"),
            ("2025-01-11T00:00", "2025-01-10"),
            ("2025-01-11T09:00", "2025-01-10"),
            ("2025-01-11T10:00", nil),
            ("2025-03-01T03:00", "2025-02-28"),
            ("2024-03-01T03:00", "2024-02-29"),
            ("2025-01-01T05:00", "2024-12-31"),
        ] as [(String, String?)])
    func nightWindow(time: String, night: String?) {
        let verdict = FrostRule.default.evaluate([hour(time, -5)])
        #expect(verdict.nights.first?.night.description == night)
        #expect(verdict.level == (night == nil ? .none : .hardFreeze))
    }

    @Test("legacy: daytime hours belong to the coming evening's night")
    func legacyDaytime() {
        let verdict = FrostRule.legacy.evaluate([hour("2025-01-10T09:00", 1), hour("2025-01-10T10:00", 1), hour("2025-01-10T17:00", 1)])
        #expect(verdict.nights.map(\.night.description) == ["2025-01-09", "2025-01-10"])
    }

    @Test("over several nights: the worst level, its first hour, the coldest hour")
    func overall() {
        let hours = [
            hour("2025-01-10T20:00", 2.5), hour("2025-01-11T04:00", -0.5), hour("2025-01-11T05:00", -1.5),
            hour("2025-01-11T20:00", -0.2, cloud: 90), hour("2025-01-12T06:00", -1.8, cloud: 90),
        ]
        let verdict = FrostRule.default.evaluate(hours)
        #expect(verdict.level == .freeze)
        #expect(verdict.firstAtLevel?.local.description == "2025-01-11T04:00")
        #expect(verdict.coldest?.local.description == "2025-01-12T06:00")
        #expect(verdict.minimumC == -1.8)
        #expect(verdict.nights.map(\.level) == [.freeze, .freeze])
        #expect(verdict.nights.map { $0.firstAtLevel?.local.description } == ["2025-01-11T04:00", "2025-01-11T20:00"])
        #expect(verdict.nights.map(\.minimumC) == [-1.5, -1.8])
    }

    @Test("equal minimums: the earliest hour is the coldest")
    func coldestTie() {
        let verdict = FrostRule.default.evaluate([hour("2025-01-10T22:00", -1), hour("2025-01-11T02:00", -1)])
        #expect(verdict.coldest?.local.description == "2025-01-10T22:00")
    }

    @Test("a spring-forward night (Helsinki, 2025-03-29/30) has 15 hours and is complete")
    func dstSpringForward() throws {
        // 2025-03-29 00:00 local (+2) = 2025-03-28 22:00 UTC; three days of hours.
        var temperatures = [Double?](repeating: 8, count: 72)
        let hours0 = series(zone: "Europe/Helsinki", fromUTC: 1_743_199_200, temperatures: temperatures)
        // The hour after the jump (04:00 local, 01:00 UTC) is the coldest, at -3.
        let jump = try #require(hours0.firstIndex { $0.time == 1_743_292_800 + 3_600 })
        temperatures[jump] = -3
        let hours = series(zone: "Europe/Helsinki", fromUTC: 1_743_199_200, temperatures: temperatures)
        #expect(hours[jump].local.description == "2025-03-30T04:00")
        #expect(hours[jump - 1].local.description == "2025-03-30T02:00")
        let verdict = FrostRule.default.evaluate(hours)
        let night = try #require(verdict.nights.first { $0.night.description == "2025-03-29" })
        #expect(night.isComplete)
        #expect(night.level == .hardFreeze)
        #expect(night.firstAtLevel?.local.description == "2025-03-30T04:00")
        #expect(night.coldest?.time == 1_743_296_400)
        // 18:00 +2 (16:00 UTC) to 10:00 +3 (07:00 UTC): 15 hours.
        let counted = hours.filter { FrostRule.default.evaluate([$0]).nights.first?.night.description == "2025-03-29" }
        #expect(counted.count == 15)
        #expect(night.windowEnd == 1_743_318_000)
    }

    @Test("a fall-back night (Helsinki, 2025-10-25/26) has 17 hours; of the two 03:00s the first comes first")
    func dstFallBack() throws {
        // 2025-10-25 00:00 local (+3) = 2025-10-24 21:00 UTC.
        var temperatures = [Double?](repeating: 8, count: 72)
        let plain = series(zone: "Europe/Helsinki", fromUTC: 1_761_339_600, temperatures: temperatures)
        let threes = plain.indices.filter { plain[$0].local.description == "2025-10-26T03:00" }
        #expect(threes.count == 2)
        temperatures[threes[0]] = -0.5
        temperatures[threes[1]] = -0.9
        let hours = series(zone: "Europe/Helsinki", fromUTC: 1_761_339_600, temperatures: temperatures)
        let verdict = FrostRule.default.evaluate(hours)
        let night = try #require(verdict.nights.first { $0.night.description == "2025-10-25" })
        #expect(night.isComplete)
        #expect(night.level == .freeze)
        #expect(night.firstAtLevel?.time == hours[threes[0]].time)
        #expect(night.coldest?.time == hours[threes[1]].time)
        let counted = hours.filter { FrostRule.default.evaluate([$0]).nights.first?.night.description == "2025-10-25" }
        #expect(counted.count == 17)
    }

    @Test("a night cut by the horizon's end: judged on the hours there are, marked incomplete, window ending with the horizon")
    func cutByHorizon() throws {
        // Three days from local midnight (UTC here): the last night has only 18:00–23:00.
        var temperatures = [Double?](repeating: 8, count: 72)
        temperatures[71] = -0.5
        let hours = series(zone: "UTC", fromUTC: 1_736_467_200, temperatures: temperatures)  // 2025-01-10T00:00Z
        let verdict = FrostRule.default.evaluate(hours)
        #expect(verdict.nights.map(\.night.description) == ["2025-01-09", "2025-01-10", "2025-01-11", "2025-01-12"])
        #expect(verdict.nights.map(\.isComplete) == [false, true, true, false])
        let last = try #require(verdict.nights.last)
        #expect(last.level == .freeze)
        #expect(last.windowEnd == hours[71].time + 3_600)
        #expect(verdict.level == .freeze)
        #expect(verdict.firstAtLevel?.local.description == "2025-01-12T23:00")
    }

    @Test("evaluating from now drops hours already over: the night under way becomes incomplete")
    func fromNow() {
        let hours = series(zone: "UTC", fromUTC: 1_736_467_200, temperatures: [-5, -5, -5] + [Double?](repeating: 8, count: 45))
        #expect(FrostRule.default.evaluate(hours).level == .hardFreeze)
        let ahead = FrostRule.default.evaluate(hours, from: 1_736_467_200 + 3 * 3_600)
        #expect(ahead.level == .none)
        #expect(ahead.nights.first?.isComplete == false)
        // The hour under way still counts.
        #expect(FrostRule.default.evaluate(hours, from: 1_736_467_200 + 2 * 3_600 + 1_800).level == .hardFreeze)
    }

    @Test("an hour without a temperature never raises a level and leaves its night incomplete")
    func missingTemperature() {
        let hours = series(zone: "UTC", fromUTC: 1_736_532_000, temperatures: [Double?](repeating: 5, count: 16))  // 18:00 to 09:00
        #expect(FrostRule.default.evaluate(hours).nights.map(\.isComplete) == [true])
        var gappy = hours
        gappy[5].temperatureC = nil
        #expect(FrostRule.default.evaluate(gappy).nights.map(\.isComplete) == [false])
        gappy[5].temperatureC = .nan
        #expect(FrostRule.default.evaluate(gappy).level == .none)
        #expect(FrostRule.default.evaluate(gappy).nights.map(\.isComplete) == [false])
    }

    @Test("a subscription's thresholds override the preset's")
    func overrides() {
        let warmer = FrostRule.default.applying(AlertSettings(frostRiskC: 5))
        #expect(warmer.evaluate([hour("2025-01-10T03:00", 4.5)]).level == .frostRisk)
        #expect(FrostRule.default.evaluate([hour("2025-01-10T03:00", 4.5)]).level == .none)
        let harder = FrostRule.default.applying(AlertSettings(hardFreezeC: -5))
        #expect(harder.evaluate([hour("2025-01-10T03:00", -3)]).level == .freeze)
        let legacy = FrostRule.legacy.applying(AlertSettings(freezeC: 1))
        #expect(legacy.evaluate([hour("2025-01-10T14:00", 0.5)]).level == .freeze)
    }

    @Test("a window that does not cross midnight (00:00–06:00) keeps its hours on their own date")
    func sameDayWindow() {
        let rule = FrostRule(name: "early", kind: .nightWindow, nightStartHour: 0, nightEndHour: 6)
        let verdict = rule.evaluate([hour("2025-01-10T23:00", -5), hour("2025-01-11T02:00", -1), hour("2025-01-11T07:00", -5)])
        #expect(verdict.level == .freeze)
        #expect(verdict.nights.map(\.night.description) == ["2025-01-11"])
    }

    @Test("no hours: no nights, level none")
    func empty() {
        let verdict = FrostRule.default.evaluate([])
        #expect(verdict.level == .none)
        #expect(verdict.nights.isEmpty)
        #expect(verdict.coldest == nil)
    }

    @Test("unordered input gives the same verdict as ordered")
    func unordered() {
        let hours = series(zone: "Europe/Helsinki", fromUTC: 1_736_467_200, temperatures: (0..<48).map { Double($0 % 7) - 2 })
        #expect(FrostRule.default.evaluate(hours.reversed()) == FrostRule.default.evaluate(hours))
    }
}
