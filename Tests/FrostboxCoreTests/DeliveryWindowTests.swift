import Foundation
import FrostboxCore
import FrostboxFixtures
import Testing

@Suite("Delivery windows (pure)")
struct DeliveryWindowTests {
    let night = LocalDate(year: 2026, month: 11, day: 10)
    let helsinki = QuietFixtures.helsinki
    /// 16:00–22:00: "from 16:00 the day before", not in the night.
    let evening = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: 22 * 60)!

    func at(_ date: LocalDate, _ hour: Int, _ minute: Int = 0, zone: TimeZone = QuietFixtures.helsinki) -> Int64 {
        QuietFixtures.instant(date, hour, minute, zone: zone)
    }

    func place(
        _ id: Int64 = 1, window: DeliveryWindow?, quiet: QuietHours? = nil, breaksThrough: Bool = false, name: String = "Garden"
    ) -> SubscribedPlace {
        SubscribedPlace(
            subscriptionID: id, token: Fixtures.token(1), name: name, unit: .celsius, settings: AlertSettings(window: window),
            quietHours: quiet, hardFreezeBreaksQuietHours: breaksThrough)
    }

    func timing(_ places: [SubscribedPlace], at now: Int64, low: Double = -1) throws -> PlannedAlert {
        try #require(AlertPlanner().plan(forecast: QuietFixtures.frostNight(night, low: low), places: places, alerted: [], now: now).alerts.first)
    }

    @Test("HH:MM bounds parse, each optional; bad texts, equal bounds and an empty window are refused naming the field")
    func parsing() throws {
        let both = try #require(try DeliveryWindow.parsing(after: "16:00", before: "08:30", field: "settings"))
        #expect(both.afterMinute == 960 && both.beforeMinute == 510)
        #expect(both.after == "16:00" && both.before == "08:30" && both.description == "16:00–08:30")
        #expect(try DeliveryWindow.parsing(after: "16:00", before: nil, field: "settings")?.description == "16:00–24:00")
        #expect(try DeliveryWindow.parsing(after: nil, before: "09:00", field: "settings")?.description == "00:00–09:00")
        #expect(try DeliveryWindow.parsing(after: nil, before: nil, field: "settings") == nil)
        for (after, before, field) in [
            ("24:00", "08:00", "settings.notify_after"), ("4pm", nil, "settings.notify_after"), (nil, "8:00", "settings.notify_before"),
            ("16:00", "22:60", "settings.notify_before"), ("16:00", "16:00", "settings.notify_before"), (nil, "00:00", "settings.notify_before"),
        ] as [(String?, String?, String)] {
            do {
                let window = try DeliveryWindow.parsing(after: after, before: before, field: "settings")
                Issue.record("\(String(describing: after))–\(String(describing: before)) was accepted as \(String(describing: window))")
            } catch {
                #expect(error.field == field)
                #expect(error.code == .invalidField)
            }
        }
        #expect(DeliveryWindow(afterMinute: 0, beforeMinute: 1440) == nil)
        #expect(DeliveryWindow(afterMinute: nil, beforeMinute: 0) == nil)
        #expect(DeliveryWindow(afterMinute: nil, beforeMinute: nil) == nil)
    }

    @Test("a window holds its own minutes: across midnight, to midnight, from midnight")
    func containment() {
        let overnight = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: 8 * 60)!
        #expect(overnight.contains(minuteOfDay: 16 * 60) && overnight.contains(minuteOfDay: 2 * 60))
        #expect(!overnight.contains(minuteOfDay: 8 * 60) && !overnight.contains(minuteOfDay: 12 * 60))
        let toMidnight = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: nil)!
        #expect(toMidnight.contains(minuteOfDay: 1439) && !toMidnight.contains(minuteOfDay: 0) && !toMidnight.contains(minuteOfDay: 15 * 60 + 59))
        let fromMidnight = DeliveryWindow(afterMinute: nil, beforeMinute: 9 * 60)!
        #expect(fromMidnight.contains(minuteOfDay: 0) && fromMidnight.contains(minuteOfDay: 8 * 60 + 59) && !fromMidnight.contains(minuteOfDay: 9 * 60))
    }

    @Test("the earliest instant: now when inside, the opening today before it, tomorrow's after it closes")
    func earliest() {
        let first = { (now: Int64) in DeliveryTiming.earliestDelivery(from: now, windows: [evening], quiet: nil, in: helsinki) }
        #expect(first(at(night, 18)) == at(night, 18))
        #expect(first(at(night, 10)) == at(night, 16))
        #expect(first(at(night, 22)) == at(night.next, 16))
        #expect(first(at(night.next, 1)) == at(night.next, 16))
        // Across midnight: 23:00–01:00 is open at 00:30, and from 18:00 opens at 23:00.
        let late = DeliveryWindow(afterMinute: 23 * 60, beforeMinute: 60)!
        #expect(DeliveryTiming.earliestDelivery(from: at(night.next, 0, 30), windows: [late], quiet: nil, in: helsinki) == at(night.next, 0, 30))
        #expect(DeliveryTiming.earliestDelivery(from: at(night, 18), windows: [late], quiet: nil, in: helsinki) == at(night, 23))
        // The same wall clock in New York is another instant.
        let newYork = TimeZone(identifier: "America/New_York")!
        let there = DeliveryTiming.earliestDelivery(from: at(night, 10, zone: newYork), windows: [evening], quiet: nil, in: newYork)
        #expect(there == at(night, 16, zone: newYork))
        #expect(there == at(night, 16) + 7 * 3600)
    }

    @Test("combined with quiet hours: the earliest instant both allow, or none when the window lies inside them")
    func withQuietHours() {
        let quiet = QuietFixtures.quiet
        let morning = DeliveryWindow(afterMinute: 6 * 60, beforeMinute: 9 * 60)!
        #expect(DeliveryTiming.earliestDelivery(from: at(night, 23), windows: [morning], quiet: quiet, in: helsinki) == at(night.next, 7))
        let lateEvening = DeliveryWindow(afterMinute: 21 * 60, beforeMinute: 23 * 60)!
        #expect(DeliveryTiming.earliestDelivery(from: at(night, 10), windows: [lateEvening], quiet: quiet, in: helsinki) == at(night, 21))
        #expect(DeliveryTiming.earliestDelivery(from: at(night, 22, 30), windows: [lateEvening], quiet: quiet, in: helsinki) == at(night.next, 21))
        let inside = DeliveryWindow(afterMinute: 23 * 60, beforeMinute: 60)!
        #expect(DeliveryTiming.earliestDelivery(from: at(night, 10), windows: [inside], quiet: quiet, in: helsinki) == nil)
    }

    @Test("with quiet hours only, the earliest instant is where the span ends, every half hour of both DST weeks")
    func sameAsQuietHoursAlone() {
        let quiet = QuietFixtures.quiet
        for start in [at(LocalDate(year: 2026, month: 3, day: 25), 0), at(LocalDate(year: 2026, month: 10, day: 21), 0)] {
            for step in 0..<(7 * 48) {
                let now = start + Int64(step) * 1800
                let expected = quiet.end(around: now, in: helsinki) ?? now
                #expect(DeliveryTiming.earliestDelivery(from: now, windows: [], quiet: quiet, in: helsinki) == expected, "at \(now)")
            }
        }
    }

    @Test("on the October DST night in Helsinki a window opening at 05:00 opens 7 hours after 23:00 EEST; 03:30 opens at its first occurrence")
    func fallBackNight() {
        // Sunday 25 October 2026, 04:00 EEST → 03:00 EET.
        let saturday = LocalDate(year: 2026, month: 10, day: 24)
        let five = DeliveryWindow(afterMinute: 5 * 60, beforeMinute: 10 * 60)!
        let opening = DeliveryTiming.earliestDelivery(from: at(saturday, 23), windows: [five], quiet: nil, in: helsinki)
        #expect(opening == at(saturday.next, 5))
        #expect(opening == at(saturday, 23) + 7 * 3600)
        let halfPastThree = DeliveryWindow(afterMinute: 210, beforeMinute: 6 * 60)!
        let first = DeliveryTiming.earliestDelivery(from: at(saturday, 23), windows: [halfPastThree], quiet: nil, in: helsinki)
        #expect(first == at(saturday.next, 3, 30))
        #expect(first.map { helsinki.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval($0))) } == 3 * 3600)
    }

    @Test("on the March DST night a window opening in the skipped hour opens just after it")
    func springForwardNight() {
        // Sunday 29 March 2026, 03:00 EET → 04:00 EEST: 03:30 does not exist.
        let saturday = LocalDate(year: 2026, month: 3, day: 28)
        let window = DeliveryWindow(afterMinute: 210, beforeMinute: 9 * 60)!
        let opening = DeliveryTiming.earliestDelivery(from: at(saturday, 23), windows: [window], quiet: nil, in: helsinki)
        #expect(opening == at(saturday.next, 4, 30))
    }

    @Test("planned at 10:00 for tonight's 03:00 frost: held until 16:00; at 18:00: sent at once; without a window: at once")
    func planning() throws {
        #expect(try timing([place(window: evening)], at: at(night, 10)).timing == .hold(until: at(night, 16)))
        #expect(try timing([place(window: evening)], at: at(night, 18)).timing == .now)
        #expect(try timing([place(window: nil)], at: at(night.next, 1)).timing == .now)
    }

    @Test("planned at 01:00 with the frost at 03:00: the window opens at 16:00, after the frost began, so the held alert is dropped then")
    func expiredWhenFrostUnderWay() throws {
        let alert = try timing([place(window: evening)], at: at(night.next, 1))
        let sixteen = at(night.next, 16)
        #expect(alert.timing == .hold(until: sixteen))
        #expect(alert.frostStartsAt == at(night.next, 3))
        #expect(!DeliveryTiming.heldAlertStillHelps(at: sixteen, frostStartsAt: alert.frostStartsAt, windowEnd: alert.windowEnd))
    }

    @Test("a window inside quiet hours never opens: the alert is held until its frost begins, to be dropped then")
    func neverOpens() throws {
        let inside = DeliveryWindow(afterMinute: 23 * 60, beforeMinute: 60)!
        let alert = try timing([place(window: inside, quiet: QuietFixtures.quiet)], at: at(night, 10))
        #expect(alert.timing == .hold(until: at(night.next, 3)))
        #expect(!DeliveryTiming.heldAlertStillHelps(at: at(night.next, 3), frostStartsAt: alert.frostStartsAt, windowEnd: alert.windowEnd))
    }

    @Test("combined in planning: quiet hours 22:00–07:00 and a 06:00–09:00 window, planned at 23:00, hold until 07:00")
    func planningWithQuietHours() throws {
        let morning = DeliveryWindow(afterMinute: 6 * 60, beforeMinute: 9 * 60)!
        let alert = try timing([place(window: morning, quiet: QuietFixtures.quiet)], at: at(night, 23))
        #expect(alert.timing == .hold(until: at(night.next, 7)))
    }

    @Test("a hard freeze breaks through the window when the device lets it break through quiet hours; a freeze waits")
    func breakThrough() throws {
        let hard = try timing([place(window: evening, breaksThrough: true)], at: at(night.next, 1), low: -4)
        #expect(hard.event.level == .hardFreeze && hard.timing == .breakThrough)
        #expect(hard.interruptionLevel == .timeSensitive)
        let held = try timing([place(window: evening)], at: at(night.next, 1), low: -4)
        #expect(held.timing == .hold(until: at(night.next, 16)))
        let freeze = try timing([place(window: evening, breaksThrough: true)], at: at(night, 10))
        #expect(freeze.event.level == .freeze && freeze.timing == .hold(until: at(night, 16)))
    }

    @Test("an alert naming two places goes out when either window is open; a place without a window takes it at once")
    func severalPlaces() throws {
        let early = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: 18 * 60)!
        let late = DeliveryWindow(afterMinute: 20 * 60, beforeMinute: 22 * 60)!
        let both = try timing([place(1, window: early, name: "Garden"), place(2, window: late, name: "Field")], at: at(night, 19))
        #expect(both.places == ["Garden", "Field"])
        #expect(both.timing == .hold(until: at(night, 20)))
        let open = try timing([place(1, window: early, name: "Garden"), place(2, window: nil, name: "Field")], at: at(night, 19))
        #expect(open.timing == .now)
    }
}
