import Foundation
import FrostboxCore
import FrostboxFixtures
import Testing

/// A device in Helsinki with quiet hours 22:00–07:00 and nights whose frost a closure decides;
/// local times come from the real zone, so DST nights are as they are.
enum QuietFixtures {
    static let helsinki = TimeZone(identifier: "Europe/Helsinki")!
    static let quiet = QuietHours(startMinute: 22 * 60, endMinute: 7 * 60)!

    /// The UTC instant of a Helsinki wall-clock time (the first, where a fall-back night repeats it).
    static func instant(_ date: LocalDate, _ hour: Int, _ minute: Int = 0, zone: TimeZone = helsinki) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute)
        return Int64(calendar.date(from: components)!.timeIntervalSince1970)
    }

    /// 72 hourly values from local midnight of `day` in `zone`; `temperature(date, hour)` decides each.
    static func forecast(from day: LocalDate, zone: TimeZone = helsinki, _ temperature: (LocalDate, Int) -> Double) -> BoxForecast {
        let start = instant(day, 0, zone: zone)
        var hours: [ForecastHour] = []
        for index in 0..<72 {
            let time = start + Int64(index) * 3600
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time))))
            let local = LocalDateTime(wallClockSeconds: time + offset)
            hours.append(ForecastHour(time: time, local: local, temperatureC: temperature(local.date, local.hour), cloudCoverPercent: 10, windSpeedKmh: 5))
        }
        return BoxForecast(
            box: Fixtures.box, timezone: zone.identifier, utcOffsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))),
            gridLatitude: Fixtures.box.latitude, gridLongitude: Fixtures.box.longitude, elevation: 10, fetchedAt: start, hours: hours)
    }

    /// Mild, but `low` °C from 03:00 to 08:00 after the evening of `night` (a frost night 03–08).
    static func frostNight(_ night: LocalDate, low: Double = -1, zone: TimeZone = helsinki) -> BoxForecast {
        forecast(from: night, zone: zone) { date, hour in date == night.next && (3..<8).contains(hour) ? low : 6 }
    }

    static func place(quiet: QuietHours? = quiet, breaksThrough: Bool = false) -> SubscribedPlace {
        SubscribedPlace(
            subscriptionID: 1, token: Fixtures.token(1), name: "Garden", unit: .celsius, quietHours: quiet, hardFreezeBreaksQuietHours: breaksThrough)
    }
}

@Suite("Quiet hours (pure)")
struct QuietHoursTests {
    let night = LocalDate(year: 2026, month: 11, day: 10)
    let helsinki = QuietFixtures.helsinki

    @Test("HH:MM texts parse; anything else, or the same start and end, is refused naming the field")
    func parsing() throws {
        let quiet = try QuietHours(start: "22:00", end: "07:30", field: "quiet_hours")
        #expect(quiet.startMinute == 1320 && quiet.endMinute == 450)
        #expect(quiet.description == "22:00–07:30")
        for (start, end, field) in [
            ("24:00", "07:00", "quiet_hours.start"), ("7:00", "07:00", "quiet_hours.start"), ("22:00", "07:60", "quiet_hours.end"),
            ("22:00", "0700", "quiet_hours.end"), ("22:00", "", "quiet_hours.end"), ("07:00", "07:00", "quiet_hours"),
        ] {
            do {
                _ = try QuietHours(start: start, end: end, field: "quiet_hours")
                Issue.record("\(start)–\(end) was accepted")
            } catch {
                #expect(error.field == field)
                #expect(error.code == .invalidField)
            }
        }
        #expect(QuietHours(startMinute: 0, endMinute: 1440) == nil)
    }

    @Test("a span across midnight holds the late evening and the early morning, not the day")
    func acrossMidnight() {
        let quiet = QuietFixtures.quiet
        #expect(quiet.contains(minuteOfDay: 22 * 60))
        #expect(quiet.contains(minuteOfDay: 2 * 60))
        #expect(!quiet.contains(minuteOfDay: 7 * 60))
        #expect(!quiet.contains(minuteOfDay: 18 * 60))
        let day = QuietHours(startMinute: 13 * 60, endMinute: 15 * 60)!
        #expect(day.contains(minuteOfDay: 14 * 60) && !day.contains(minuteOfDay: 15 * 60) && !day.contains(minuteOfDay: 2 * 60))
    }

    @Test("the span ends at 07:00 local: the next morning from 23:00, the same morning from 02:00; 18:00 is outside")
    func endOfSpan() {
        let quiet = QuietFixtures.quiet
        let seven = QuietFixtures.instant(night.next, 7)
        #expect(quiet.end(around: QuietFixtures.instant(night, 23), in: helsinki) == seven)
        #expect(quiet.end(around: QuietFixtures.instant(night.next, 2), in: helsinki) == seven)
        #expect(quiet.end(around: QuietFixtures.instant(night, 18), in: helsinki) == nil)
        // The same wall clock in another zone ends at another instant.
        let newYork = TimeZone(identifier: "America/New_York")!
        let end = quiet.end(around: QuietFixtures.instant(night, 23, zone: newYork), in: newYork)
        #expect(end == QuietFixtures.instant(night.next, 7, zone: newYork))
        #expect(end == seven + 7 * 3600)
    }

    @Test("across the October DST night in Helsinki the 22:00–07:00 span lasts ten hours, and ends at 07:00 EET")
    func fallBackNight() {
        // Sunday 25 October 2026, 04:00 EEST → 03:00 EET.
        let saturday = LocalDate(year: 2026, month: 10, day: 24)
        let start = QuietFixtures.instant(saturday, 22)
        let end = QuietFixtures.quiet.end(around: start + 3600, in: helsinki)
        #expect(end == start + 10 * 3600)
        #expect(end == QuietFixtures.instant(saturday.next, 7))
        // 03:30 comes twice; a span ending then ends at the first.
        let early = QuietHours(startMinute: 60, endMinute: 210)!
        let firstHalfPastThree = QuietFixtures.instant(saturday.next, 3, 30)
        #expect(early.end(around: QuietFixtures.instant(saturday.next, 2), in: helsinki) == firstHalfPastThree)
        #expect(helsinki.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(firstHalfPastThree))) == 3 * 3600)
    }

    @Test("across the March DST night a span ending in the skipped hour ends just after it")
    func springForwardNight() {
        // Sunday 29 March 2026, 03:00 EET → 04:00 EEST: 03:30 does not exist.
        let saturday = LocalDate(year: 2026, month: 3, day: 28)
        let quiet = QuietHours(startMinute: 22 * 60, endMinute: 210)!
        let end = quiet.end(around: QuietFixtures.instant(saturday, 23), in: helsinki)
        // 01:30 UTC, which Helsinki shows as 04:30 EEST.
        #expect(end == QuietFixtures.instant(saturday.next, 4, 30))
        // 5½ hours after 22:00 EET: the night is an hour short.
        #expect(end == QuietFixtures.instant(saturday, 22) + 5 * 3600 + 30 * 60)
    }

    @Test("planned at 23:00 inside quiet hours: held until 07:00, and by then the 03:00 frost has begun")
    func heldThenExpired() throws {
        let plan = AlertPlanner().plan(
            forecast: QuietFixtures.frostNight(night), places: [QuietFixtures.place()], alerted: [], now: QuietFixtures.instant(night, 23))
        let alert = try #require(plan.alerts.first)
        let seven = QuietFixtures.instant(night.next, 7)
        #expect(alert.timing == .hold(until: seven))
        #expect(alert.frostStartsAt == QuietFixtures.instant(night.next, 3))
        #expect(!DeliveryTiming.heldAlertStillHelps(at: seven, frostStartsAt: alert.frostStartsAt, windowEnd: alert.windowEnd))
        #expect(DeliveryTiming.heldAlertStillHelps(at: QuietFixtures.instant(night.next, 2), frostStartsAt: alert.frostStartsAt, windowEnd: alert.windowEnd))
    }

    @Test("planned at 18:00, before quiet hours: sent at once; without quiet hours: at once whatever the hour")
    func outsideQuietHours() throws {
        let forecast = QuietFixtures.frostNight(night)
        let evening = AlertPlanner().plan(forecast: forecast, places: [QuietFixtures.place()], alerted: [], now: QuietFixtures.instant(night, 18))
        #expect(evening.alerts.map(\.timing) == [.now])
        let none = AlertPlanner().plan(forecast: forecast, places: [QuietFixtures.place(quiet: nil)], alerted: [], now: QuietFixtures.instant(night, 23))
        #expect(none.alerts.map(\.timing) == [.now])
    }

    @Test("a hard freeze at 02:00 breaks through when the device allows it, time-sensitive; otherwise it is held")
    func breakThrough() throws {
        let forecast = QuietFixtures.frostNight(night, low: -4)
        let two = QuietFixtures.instant(night.next, 2)
        let allowed = try #require(
            AlertPlanner().plan(forecast: forecast, places: [QuietFixtures.place(breaksThrough: true)], alerted: [], now: two).alerts.first)
        #expect(allowed.event.level == .hardFreeze)
        #expect(allowed.timing == .breakThrough)
        #expect(allowed.interruptionLevel == .timeSensitive)
        #expect(allowed.notification().content.interruption == .timeSensitive)
        let held = try #require(AlertPlanner().plan(forecast: forecast, places: [QuietFixtures.place()], alerted: [], now: two).alerts.first)
        #expect(held.timing == .hold(until: QuietFixtures.instant(night.next, 7)))
        // Only a hard freeze breaks through: a freeze waits even when the device allows break-through.
        let freeze = try #require(
            AlertPlanner().plan(forecast: QuietFixtures.frostNight(night, low: -1), places: [QuietFixtures.place(breaksThrough: true)], alerted: [], now: two)
                .alerts.first)
        #expect(freeze.event.level == .freeze)
        #expect(freeze.timing == .hold(until: QuietFixtures.instant(night.next, 7)))
    }

    @Test("on the October DST night, planned at 23:00 EEST, the alert is held until 07:00 EET")
    func plannedAcrossFallBack() throws {
        let saturday = LocalDate(year: 2026, month: 10, day: 24)
        let plan = AlertPlanner().plan(
            forecast: QuietFixtures.frostNight(saturday), places: [QuietFixtures.place()], alerted: [], now: QuietFixtures.instant(saturday, 23))
        let alert = try #require(plan.alerts.first)
        #expect(alert.timing == .hold(until: QuietFixtures.instant(saturday.next, 7)))
        #expect(alert.timing == .hold(until: QuietFixtures.instant(saturday, 23) + 9 * 3600))
    }

    @Test("an escalation over alerts that were only held reads as a first alert; over one that was sent, as an escalation")
    func escalationWording() throws {
        let forecast = QuietFixtures.frostNight(night, low: -4)
        let freeze = FrostEvent(box: Fixtures.box, night: night, level: .freeze)
        let now = QuietFixtures.instant(night, 18)
        let onlyHeld = try #require(
            AlertPlanner().plan(
                forecast: forecast, places: [QuietFixtures.place()],
                alerted: [AlertedEvent(token: Fixtures.token(1), event: freeze, kind: .frost, neverSent: true)],
                now: now
            ).alerts.first)
        #expect(onlyHeld.kind == .escalation && onlyHeld.isFirstSeen)
        #expect(onlyHeld.text.title == "Hard frost warning")
        #expect(onlyHeld.titleLocKey == "FROST_TITLE_HARD_FREEZE")
        let sent = try #require(
            AlertPlanner().plan(
                forecast: forecast, places: [QuietFixtures.place()], alerted: [AlertedEvent(token: Fixtures.token(1), event: freeze, kind: .frost)], now: now
            ).alerts.first)
        #expect(sent.kind == .escalation && !sent.isFirstSeen)
        #expect(sent.text.title == "Colder than forecast")
        #expect(sent.titleLocKey == "FROST_TITLE_ESCALATION")
    }

    @Test("a forecast whose zone name is unknown here falls back to the offset its hours show")
    func unknownZone() {
        var forecast = QuietFixtures.frostNight(night)
        forecast.timezone = "Nowhere/Atlantis"
        let now = QuietFixtures.instant(night, 23)
        #expect(AlertPlanner.zone(of: forecast, at: now).secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(now))) == 2 * 3600)
    }
}
