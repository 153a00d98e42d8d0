import FrostboxCore
import Testing

/// Issue #48: which nights of a forecast are kept for the check, and with what.
@Suite("Kept verdicts")
struct KeptVerdictTests {
    static let box = GeoBox(latitudeIndex: 1204, longitudeIndex: 500)
    /// 48 hours from 2026-11-28 00:00 local on UTC+2, clear and calm, 1 °C by night (20:00–06:00 at −1 °C), 6 °C by day.
    static let midnight: Int64 = 1_795_816_800
    static var forecast: BoxForecast {
        let hours = (0..<48).map { i -> ForecastHour in
            let time = midnight + Int64(i) * 3_600
            let local = LocalDateTime(wallClockSeconds: time + 7_200)
            let t: Double = local.hour >= 20 || local.hour < 6 ? -1 : local.hour >= 18 || local.hour < 10 ? 1 : 6
            return ForecastHour(time: time, local: local, temperatureC: t, cloudCoverPercent: 0, windSpeedKmh: 0)
        }
        return BoxForecast(
            box: box, timezone: "Etc/GMT-2", utcOffsetSeconds: 7_200, gridLatitude: box.latitude, gridLongitude: box.longitude, elevation: nil,
            fetchedAt: midnight, hours: hours)
    }

    @Test("nights not yet begun are kept with their window, offset, level, low and chances; a night under way or cut short is not")
    func keptNights() throws {
        let rule = FrostRule.default
        let evening = LocalDate(year: 2026, month: 11, day: 28)
        let chance = NightProbability(night: evening, byLevel: [.frostRisk: 1, .freeze: 0.7, .hardFreeze: 0.05])
        // 14:00 local: the night of the 28th (18:00 → 10:00) lies ahead and is whole; the night
        // of the 27th is under way (its hours before 10:00 are in the series); the 29th is cut
        // at midnight by the 48-hour horizon.
        let now = Self.midnight + 14 * 3_600
        let kept = KeptVerdict.of(Self.forecast, box: Self.box, rule: rule, chances: [chance], now: now)
        #expect(kept.map(\.night) == [evening])
        let night = try #require(kept.first)
        #expect(night.windowStart == Self.midnight + 18 * 3_600)
        #expect(night.windowEnd == Self.midnight + 34 * 3_600)
        #expect(night.utcOffsetSeconds == 7_200)
        #expect(night.level == .freeze && night.minimumC == -1)
        #expect(night.probabilities == [.frostRisk: 1, .freeze: 0.7, .hardFreeze: 0.05])
        #expect(night.judgedAt == now)
        // From 18:00 on the night has begun: nothing is kept any more.
        #expect(KeptVerdict.of(Self.forecast, box: Self.box, rule: rule, now: Self.midnight + 18 * 3_600).isEmpty)
        // Without an ensemble: no chances.
        #expect(KeptVerdict.of(Self.forecast, box: Self.box, rule: rule, now: now).first?.probabilities.isEmpty == true)
    }
}
