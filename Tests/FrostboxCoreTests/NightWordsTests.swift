import Foundation
import FrostboxCore
import FrostboxFixtures
import Testing

/// Which night an alert names, by the recipient's wall clock when it goes out: the night now
/// under way (midnight to noon), tonight, tomorrow night, a weekday, a date. Local time comes
/// from the place's real zone, so date-line places and DST nights are as they are.
@Suite("Night words (pure)")
struct NightWordsTests {
    static let helsinki = QuietFixtures.helsinki
    /// Tuesday 10 November 2026 (Helsinki UTC+2, no DST change near it).
    static let day = LocalDate(year: 2026, month: 11, day: 10)
    let planner = AlertPlanner(nightsAhead: 2)

    /// 120 hourly values from local midnight of `start` in `zone`: mild (6 °C), except the night
    /// of `night` (18:00–10:00 at −3 °C, −4 °C at 05:00).
    static func frost(on night: LocalDate, from start: LocalDate, zone: TimeZone = helsinki) -> BoxForecast {
        let first = QuietFixtures.instant(start, 0, zone: zone)
        var hours: [ForecastHour] = []
        for index in 0..<120 {
            let time = first + Int64(index) * 3600
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time))))
            let local = LocalDateTime(wallClockSeconds: time + offset)
            var temperature = 6.0
            if (local.date == night && local.hour >= 18) || (local.date == night.next && local.hour < 10) { temperature = -3 }
            if local.date == night.next && local.hour == 5 { temperature = -4 }
            hours.append(ForecastHour(time: time, local: local, temperatureC: temperature, cloudCoverPercent: 10, windSpeedKmh: 5))
        }
        return BoxForecast(
            box: Fixtures.box, timezone: zone.identifier, utcOffsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(first))),
            gridLatitude: Fixtures.box.latitude, gridLongitude: Fixtures.box.longitude, elevation: 10, fetchedAt: first, hours: hours)
    }

    /// The one alert's body for frost on the night `night` days after `day`, planned at
    /// `hour:minute` local on the date `at` days after `day`.
    func body(night: Int, at: Int, _ hour: Int, _ minute: Int = 0, zone: TimeZone = helsinki, base: LocalDate = day) throws -> String {
        func date(_ offset: Int) -> LocalDate { LocalDate(daysSinceEpoch: base.daysSinceEpoch + Int64(offset)) }
        let forecast = Self.frost(on: date(night), from: date(-1), zone: zone)
        let now = QuietFixtures.instant(date(at), hour, minute, zone: zone)
        let place = SubscribedPlace(subscriptionID: 1, token: Fixtures.token(1), name: "Home", unit: .celsius)
        let alerts = planner.plan(forecast: forecast, places: [place], alerted: [], now: now).alerts
        #expect(alerts.count == 1)
        return try #require(alerts.first).text.body
    }

    @Test(
        "at 09:00 the night that is ending is the night under way; tonight is this evening's",
        arguments: [
            (-1, "Hard frost in the night now under way at Home: low −3 °C around 09:00"),
            (0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            (1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
            (2, "Hard frost on Thursday night at Home: low −4 °C around 05:00"),
        ])
    func morning(night: Int, expected: String) throws {
        #expect(try body(night: night, at: 0, 9) == expected)
    }

    @Test(
        "at 18:00 and 23:30 this evening's night is tonight",
        arguments: [
            (18, 0, 0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            (18, 0, 1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
            (18, 0, 2, "Hard frost on Thursday night at Home: low −4 °C around 05:00"),
            (23, 30, 0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            (23, 30, 1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
        ])
    func evening(hour: Int, minute: Int, night: Int, expected: String) throws {
        #expect(try body(night: night, at: 0, hour, minute) == expected)
    }

    @Test("after midnight the night that began the evening before is under way, with its low still ahead")
    func afterMidnight() throws {
        #expect(try body(night: 0, at: 1, 3) == "Hard frost in the night now under way at Home: low −4 °C around 05:00")
        #expect(try body(night: 1, at: 1, 3) == "Hard frost tonight at Home: low −4 °C around 05:00")
    }

    @Test(
        "across the date line the place's own date decides, not UTC's",
        arguments: [
            // Tongatapu (UTC+13): 09:00 on the 10th is 20:00 on the 9th in UTC.
            ("Pacific/Tongatapu", 9, 0, 0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            ("Pacific/Tongatapu", 9, 0, -1, "Hard frost in the night now under way at Home: low −3 °C around 09:00"),
            ("Pacific/Kiritimati", 23, 30, 1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
            // Pago Pago (UTC−11): 18:00 on the 10th is 05:00 on the 11th in UTC.
            ("Pacific/Pago_Pago", 18, 0, 0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            ("Pacific/Pago_Pago", 9, 0, 1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
        ])
    func dateLine(zone: String, hour: Int, minute: Int, night: Int, expected: String) throws {
        #expect(try body(night: night, at: 0, hour, minute, zone: try #require(TimeZone(identifier: zone))) == expected)
    }

    @Test(
        "over Helsinki's DST change (clocks back at 04:00 on Sunday 25 October 2026) the words follow the wall clock",
        arguments: [
            (0, 23, 30, 0, "Hard frost tonight at Home: low −4 °C around 05:00"),
            (0, 23, 30, 1, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
            (1, 9, 0, 0, "Hard frost in the night now under way at Home: low −3 °C around 09:00"),
            (1, 9, 0, 1, "Hard frost tonight at Home: low −4 °C around 05:00"),
            (1, 18, 0, 2, "Hard frost tomorrow night at Home: low −4 °C around 05:00"),
        ])
    func dst(at: Int, hour: Int, minute: Int, night: Int, expected: String) throws {
        let saturday = LocalDate(year: 2026, month: 10, day: 24)
        #expect(try body(night: night, at: at, hour, minute, base: saturday) == expected)
    }

    @Test("a held alert names its night as the clock will when its hold ends, across a DST change")
    func heldRelease() throws {
        let saturday = LocalDate(year: 2026, month: 10, day: 24)
        let forecast = Self.frost(on: saturday.next, from: saturday.previous)
        let place = SubscribedPlace(
            subscriptionID: 1, token: Fixtures.token(1), name: "Home", unit: .celsius, quietHours: QuietFixtures.quiet)
        let now = QuietFixtures.instant(saturday, 23, 30)
        let alert = try #require(planner.plan(forecast: forecast, places: [place], alerted: [], now: now).alerts.first)
        // Held through quiet hours until 07:00 EET on Sunday (05:00 UTC, after the change):
        // by then Sunday evening's night is tonight, no longer tomorrow night.
        #expect(alert.timing == .hold(until: QuietFixtures.instant(saturday.next, 7)))
        #expect(QuietFixtures.instant(saturday.next, 7) == 1_792_904_400)
        #expect(alert.relativeNight == .tonight)
        #expect(alert.text.body == "Hard frost tonight at Home: low −4 °C around 05:00")
        #expect(alert.bodyLocKey == "FROST_HARD_FREEZE_TONIGHT")
    }

    @Test("the night under way has a localisation key of its own; a weekday's is NIGHT_OF with the date")
    func locKeys() {
        let night = Self.day
        let at0300 = LocalDateTime(date: night.next, hour: 3)
        #expect(RelativeNight(night: night, at: at0300) == .underWay)
        #expect(RelativeNight(night: night, at: LocalDateTime(date: night.next, hour: 12)) == .later)
        #expect(RelativeNight(night: night.next.next.next, at: LocalDateTime(date: night, hour: 20)) == .weekday)
        #expect(RelativeNight(night: night.next.next.next.next.next.next.next, at: LocalDateTime(date: night, hour: 20)) == .later)
        var alert = PlannedAlert(
            token: Fixtures.token(1), event: FrostEvent(box: Fixtures.box, night: night, level: .freeze), kind: .frost, places: ["Home"],
            unit: .celsius, minimumC: -1, coldestAt: nil, windowEnd: 0, relativeNight: .underWay)
        #expect(alert.bodyLocKey == "FROST_FREEZE_NIGHT_UNDER_WAY")
        alert.relativeNight = .weekday
        #expect(alert.bodyLocKey == "FROST_FREEZE_NIGHT_OF")
        #expect(alert.text.body == "Frost on Tuesday night at Home: low −1 °C")
    }
}
