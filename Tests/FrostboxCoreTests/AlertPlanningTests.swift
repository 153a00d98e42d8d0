import FrostboxCore
import FrostboxFixtures
import Testing

@Suite("Alert planning (pure)")
struct AlertPlanningTests {
    let planner = AlertPlanner()
    let device = Fixtures.token(1)
    let other = Fixtures.token(2)

    func plan(
        _ forecast: BoxForecast, _ places: [SubscribedPlace], alerted: [AlertedEvent] = [], now: Int64 = Fixtures.afternoon, planner: AlertPlanner? = nil
    ) -> BoxPlan {
        (planner ?? self.planner).plan(forecast: forecast, places: places, alerted: alerted, now: now)
    }

    @Test("one alert per device and event naming every place of the device in the box")
    func namesEveryPlace() {
        let places = [
            Fixtures.place(1, device, "Home"), Fixtures.place(2, other, "Cabin"), Fixtures.place(3, device, "Garden"),
        ]
        let result = plan(Fixtures.frost(low: -1.6), places)
        #expect(result.alerts.count == 2)
        let alert = try! #require(result.alerts.first { $0.token == device })
        #expect(alert.places == ["Home", "Garden"])
        #expect(alert.event == FrostEvent(box: Fixtures.box, night: Fixtures.day, level: .freeze))
        #expect(alert.kind == .frost)
        #expect(alert.text.body == "Frost tonight at Home, Garden: low −2 °C around 05:00")
        #expect(alert.text.title == "Frost warning")
        #expect(alert.windowEnd == Fixtures.instant(Fixtures.day.next, 10))
        #expect(result.alerts.first { $0.token == other }?.places == ["Cabin"])
    }

    @Test("the same place name twice in a box is named once; places are ordered oldest first")
    func duplicateNames() {
        let places = [Fixtures.place(5, device, "Garden"), Fixtures.place(2, device, "Home"), Fixtures.place(9, device, "Home")]
        #expect(plan(Fixtures.frost(low: -1), places).alerts.map(\.places) == [["Home", "Garden"]])
    }

    @Test(
        "levels, units and wording",
        arguments: [
            (-1.6, TemperatureUnit.celsius, FrostLevel.freeze, "Frost tonight at Home: low −2 °C around 05:00"),
            (-2.2, .fahrenheit, .hardFreeze, "Hard frost tonight at Home: low 28 °F around 05:00"),
            (-5, .celsius, .hardFreeze, "Hard frost tonight at Home: low −5 °C around 05:00"),
            (2.0, .celsius, .frostRisk, "Frost risk tonight at Home: low 2 °C around 05:00"),
            (-0.4, .celsius, .freeze, "Frost tonight at Home: low 0 °C around 05:00"),
            (0.5, .fahrenheit, .frostRisk, "Frost risk tonight at Home: low 33 °F around 05:00"),
        ])
    func wording(low: Double, unit: TemperatureUnit, level: FrostLevel, body: String) throws {
        let alert = try #require(plan(Fixtures.frost(low: low), [Fixtures.place(1, device, "Home", unit: unit)]).alerts.first)
        #expect(alert.event.level == level)
        #expect(alert.text.body == body)
    }

    @Test("no frost, no alert; an empty box plans nothing")
    func noFrost() {
        #expect(plan(Fixtures.forecast { _, _ in 7 }, [Fixtures.place(1, device, "Home")]).alerts.isEmpty)
        #expect(plan(Fixtures.frost(low: -3), []).alerts.isEmpty)
    }

    @Test("frost risk needs clear, calm skies under the default rule but not under legacy")
    func riskConditions() {
        let cloudy = Fixtures.forecast(cloud: 90) { date, hour in date == Fixtures.day.next && hour == 5 ? 2 : 8 }
        #expect(plan(cloudy, [Fixtures.place(1, device, "Home")]).alerts.isEmpty)
        let legacy = Fixtures.place(1, device, "Home", settings: AlertSettings(rule: "legacy"))
        #expect(plan(cloudy, [legacy]).alerts.map(\.event.level) == [.frostRisk])
    }

    @Test("an event already alerted is never planned again; a lower level later that night neither")
    func neverTwice() {
        let places = [Fixtures.place(1, device, "Home")]
        let freeze = FrostEvent(box: Fixtures.box, night: Fixtures.day, level: .freeze)
        #expect(plan(Fixtures.frost(low: -1), places, alerted: [AlertedEvent(token: device, event: freeze, kind: .frost)]).alerts.isEmpty)
        #expect(plan(Fixtures.frost(low: 1), places, alerted: [AlertedEvent(token: device, event: freeze, kind: .frost)]).alerts.isEmpty)
        // Another device in the same box still gets it.
        let both = places + [Fixtures.place(2, other, "Cabin")]
        #expect(plan(Fixtures.frost(low: -1), both, alerted: [AlertedEvent(token: device, event: freeze, kind: .frost)]).alerts.map(\.token) == [other])
    }

    @Test("a higher level later the same night goes out as an escalation with the same collapse id")
    func escalation() throws {
        let places = [Fixtures.place(1, device, "Home")]
        let first = try #require(plan(Fixtures.frost(low: -1), places).alerts.first)
        let alerted = [AlertedEvent(token: device, event: first.event, kind: first.kind)]
        let worse = try #require(plan(Fixtures.frost(low: -4), places, alerted: alerted).alerts.first)
        #expect(worse.kind == .escalation)
        #expect(worse.event.level == .hardFreeze)
        #expect(worse.text.title == "Colder than forecast")
        #expect(worse.collapseID == first.collapseID)
        #expect(worse.notification(messageID: "x").content.titleLocKey == "FROST_TITLE_ESCALATION")
        // After the escalation, neither level goes out again.
        let both = alerted + [AlertedEvent(token: device, event: worse.event, kind: .escalation)]
        #expect(plan(Fixtures.frost(low: -4), places, alerted: both).alerts.isEmpty)
        #expect(plan(Fixtures.frost(low: -1), places, alerted: both).alerts.isEmpty)
    }

    @Test("all-clear: off by default, once when the low rises above the alerted level's threshold + 1 °C")
    func allClear() throws {
        let freeze = FrostEvent(box: Fixtures.box, night: Fixtures.day, level: .freeze)
        let alerted = [AlertedEvent(token: device, event: freeze, kind: .frost)]
        let warm = Fixtures.frost(low: 1.5)
        #expect(plan(warm, [Fixtures.place(1, device, "Home")], alerted: alerted).alerts.isEmpty)

        let optedIn = [Fixtures.place(1, device, "Home", settings: AlertSettings(allClear: true)), Fixtures.place(2, device, "Garden")]
        let clear = try #require(plan(warm, optedIn, alerted: alerted).alerts.first)
        #expect(clear.kind == .allClear)
        #expect(clear.event == FrostEvent(box: Fixtures.box, night: Fixtures.day, level: .none))
        #expect(clear.places == ["Home", "Garden"])
        #expect(clear.text.body == "Frost no longer expected tonight at Home, Garden: low now 2 °C")
        let push = clear.notification(messageID: "x")
        #expect(push.content.interruption == .passive)
        #expect(push.content.sound == nil)
        #expect(push.content.bodyLocKey == "FROST_ALL_CLEAR_TONIGHT")

        // Not within the margin: 0.8 °C is not above 0 + 1.
        #expect(plan(Fixtures.frost(low: 0.8), optedIn, alerted: alerted).alerts.isEmpty)
        // Not twice.
        let cleared = alerted + [AlertedEvent(token: device, event: clear.event, kind: .allClear)]
        #expect(plan(warm, optedIn, alerted: cleared).alerts.isEmpty)
        // Not for a night that was never alerted.
        #expect(plan(Fixtures.frost(low: 5), optedIn).alerts.isEmpty)
        // A harder frost after the all-clear is still an escalation.
        #expect(plan(Fixtures.frost(low: -5), optedIn, alerted: cleared).alerts.map(\.kind) == [.escalation])
    }

    @Test("one verdict per distinct rule in a box, not per subscription")
    func verdictPerRule() {
        var places: [SubscribedPlace] = []
        for i in 0..<30 { places.append(Fixtures.place(Int64(i), Fixtures.token(i), "P\(i)")) }
        places.append(Fixtures.place(100, Fixtures.token(100), "L", settings: AlertSettings(rule: "legacy")))
        places.append(Fixtures.place(101, Fixtures.token(101), "T", settings: AlertSettings(freezeC: 1)))
        places.append(Fixtures.place(102, Fixtures.token(102), "U", settings: AlertSettings(rule: "no-such-preset")))
        let result = plan(Fixtures.frost(low: -1), places)
        #expect(result.verdictsComputed == 3)
        #expect(result.alerts.count == 33)
    }

    @Test("per-subscription thresholds decide the level; only places with frost are named")
    func thresholds() throws {
        let places = [
            Fixtures.place(1, device, "Warm garden", settings: AlertSettings(frostRiskC: -2.5, freezeC: -3, hardFreezeC: -4)),
            Fixtures.place(2, device, "Cold hollow", settings: AlertSettings(freezeC: 1)),
        ]
        let alert = try #require(plan(Fixtures.frost(low: -1), places).alerts.first)
        #expect(alert.places == ["Cold hollow"])
        #expect(alert.event.level == .freeze)
    }

    @Test("tonight, tomorrow night, and nothing beyond the horizon")
    func horizon() throws {
        let places = [Fixtures.place(1, device, "Home")]
        let tomorrow = try #require(plan(Fixtures.frost(on: Fixtures.day.next, low: -1), places).alerts.first)
        #expect(tomorrow.text.body == "Frost tomorrow night at Home: low −1 °C around 05:00")
        #expect(tomorrow.bodyLocKey == "FROST_FREEZE_TOMORROW_NIGHT")
        #expect(plan(Fixtures.frost(on: Fixtures.day.next.next, low: -1), places).alerts.isEmpty)
        let wide = AlertPlanner(nightsAhead: 2)
        let later = try #require(plan(Fixtures.frost(on: Fixtures.day.next.next, low: -1), places, planner: wide).alerts.first)
        #expect(later.text.body == "Frost on Thursday night at Home: low −1 °C around 05:00")
        #expect(later.bodyLocKey == "FROST_FREEZE_NIGHT_OF")
    }

    @Test("hours already over do not alert; after midnight the night that began the evening before is 'under way'")
    func pastHours() throws {
        let places = [Fixtures.place(1, device, "Home")]
        let at0600 = Fixtures.instant(Fixtures.day.next, 6)
        // The hard frost at 05:00 is over at 06:00; the 06:00 hour (−1.5 °C) still counts.
        #expect(plan(Fixtures.frost(low: -2.5), places, now: at0600).alerts.map(\.event.level) == [.freeze])
        #expect(plan(Fixtures.frost(low: -1), places, now: Fixtures.instant(Fixtures.day.next, 7)).alerts.isEmpty)
        let at0300 = try #require(plan(Fixtures.frost(low: -1), places, now: Fixtures.instant(Fixtures.day.next, 3)).alerts.first)
        #expect(at0300.relativeNight == .underWay)
        #expect(at0300.event.night == Fixtures.day)
    }

    @Test("the push: loc keys and args, sound, thread per box, collapse per device box and night, expiry, interruption level")
    func payload() throws {
        let alert = try #require(plan(Fixtures.frost(low: -1.6), [Fixtures.place(1, device, "Home"), Fixtures.place(2, device, "Garden")]).alerts.first)
        let push = alert.notification(messageID: "6F0A1C7E-0000-4000-8000-000000000001")
        #expect(push.messageID == "6F0A1C7E-0000-4000-8000-000000000001")
        #expect(push.token == device)
        #expect(push.priority == .immediate)
        #expect(push.expiration == Fixtures.instant(Fixtures.day.next, 10))
        #expect(push.collapseID == "frost-\(Fixtures.box.key)-20260512")
        #expect(push.collapseID!.utf8.count <= 64)
        let content = push.content
        #expect(content.group == "frost-box-\(Fixtures.box)")
        #expect(content.sound == "default")
        #expect(content.interruption == .timeSensitive)
        #expect(content.bodyLocKey == "FROST_FREEZE_TONIGHT")
        #expect(content.titleLocKey == "FROST_TITLE_FREEZE")
        #expect(content.bodyLocArgs == ["Home, Garden", "−2 °C", "05:00", "2026-05-12"])
        #expect(content.frost == FrostData(box: Fixtures.box.description, night: "2026-05-12", level: "freeze", minimumC: -1.6))

        let risk = try #require(plan(Fixtures.frost(low: 2), [Fixtures.place(1, device, "Home")]).alerts.first)
        #expect(risk.notification(messageID: "x").content.interruption == .active)
        let other = try #require(plan(Fixtures.frost(low: -1, box: Fixtures.otherBox), [Fixtures.place(1, device, "Home")]).alerts.first)
        #expect(other.threadID != alert.threadID)
        #expect(other.collapseID != alert.collapseID)
    }

    @Test("collapse ids stay within 64 bytes at the extremes of boxes and dates")
    func collapseLength() {
        for box in [GeoBox(latitudeIndex: -1800, longitudeIndex: -3599), GeoBox(latitudeIndex: 1800, longitudeIndex: 3600)] {
            let alert = PlannedAlert(
                token: device, event: FrostEvent(box: box, night: LocalDate(year: 9999, month: 12, day: 31), level: .hardFreeze),
                kind: .frost, places: ["x"], unit: .celsius, minimumC: -10, coldestAt: nil, windowEnd: 0, relativeNight: .later)
            #expect(alert.collapseID.utf8.count <= 64)
        }
    }

    @Test(
        "temperatures are whole degrees with a true minus sign",
        arguments: [
            (-1.6, TemperatureUnit.celsius, "−2 °C"), (-0.4, .celsius, "0 °C"), (0, .celsius, "0 °C"), (3.5, .celsius, "4 °C"),
            (-2.2, .fahrenheit, "28 °F"), (-40, .fahrenheit, "−40 °F"), (-20, .fahrenheit, "−4 °F"),
        ])
    func temperatureFormat(celsius: Double, unit: TemperatureUnit, text: String) {
        #expect(unit.format(celsius: celsius) == text)
    }

    @Test(
        "wall-clock dates convert to and from days since 1970",
        arguments: [
            (LocalDate(year: 1970, month: 1, day: 1), Int64(0)), (LocalDate(year: 2000, month: 3, day: 1), Int64(11_017)),
            (LocalDate(year: 1969, month: 12, day: 31), Int64(-1)), (LocalDate(year: 2024, month: 2, day: 29), Int64(19_782)),
        ])
    func days(date: LocalDate, days: Int64) {
        #expect(date.daysSinceEpoch == days)
        #expect(LocalDate(daysSinceEpoch: days) == date)
    }

    @Test("the place's wall clock comes from the hour covering now")
    func localNow() {
        let forecast = Fixtures.forecast { _, _ in 5 }
        let now = Fixtures.instant(Fixtures.day, 23) + 1800
        #expect(AlertPlanner.localTime(at: now, in: forecast) == LocalDateTime(date: Fixtures.day, hour: 23, minute: 30))
    }

    // MARK: Hours already over (the planner judges through FrostRule.evaluate(_:from:))

    /// Helsinki over the autumn DST change: local midnight of 24 October 2026 (UTC+3) for 72
    /// hours; clocks go back at 04:00 on the 25th (01:00 UTC), so local 03:00 comes twice.
    /// The night of the 24th drops to −2.5 °C in the first 03:00, −1 °C in the second one.
    static let dstNight: BoxForecast = {
        let start: Int64 = 1_792_789_200  // 2026-10-23 21:00 UTC = 2026-10-24 00:00 EEST
        let change: Int64 = 1_792_890_000  // 2026-10-25 01:00 UTC
        var hours: [ForecastHour] = []
        for index in 0..<72 {
            let time = start + Int64(index) * 3_600
            let offset: Int64 = time < change ? 10_800 : 7_200
            let local = LocalDateTime(wallClockSeconds: time + offset)
            var temperature = 8.0
            if time == change - 3_600 { temperature = -2.5 }
            if time == change { temperature = -1 }
            hours.append(ForecastHour(time: time, local: local, temperatureC: temperature, cloudCoverPercent: 10, windSpeedKmh: 5))
        }
        return BoxForecast(
            box: Fixtures.box, timezone: "Europe/Helsinki", utcOffsetSeconds: 10_800, gridLatitude: Fixtures.box.latitude,
            gridLongitude: Fixtures.box.longitude, elevation: 10, fetchedAt: start, hours: hours)
    }()

    @Test("a DST night: the hour already over no longer alerts, the repeated 03:00 still does, the night is the one under way")
    func dstNightMidRun() throws {
        let places = [Fixtures.place(1, device, "Home")]
        let night = LocalDate(year: 2026, month: 10, day: 24)
        let change: Int64 = 1_792_890_000
        let before = try #require(plan(Self.dstNight, places, now: change - 8 * 3_600).alerts.first)
        #expect(before.event == FrostEvent(box: Fixtures.box, night: night, level: .hardFreeze))
        #expect(before.minimumC == -2.5)
        // In the first 03:00 hour, still under way: it counts.
        #expect(plan(Self.dstNight, places, now: change - 1).alerts.first?.event.level == .hardFreeze)
        // At the change the first 03:00 is over; the second 03:00 (−1 °C) is a freeze, in the
        // night now under way (03:00 on the 25th: the night of the 24th).
        let mid = try #require(plan(Self.dstNight, places, now: change).alerts.first)
        #expect(mid.event == FrostEvent(box: Fixtures.box, night: night, level: .freeze))
        #expect(mid.relativeNight == .underWay)
        #expect(mid.minimumC == -1)
        #expect(plan(Self.dstNight, places, now: change + 3_600).alerts.isEmpty)
    }

    @Test(
        "planning mid-night judges exactly the hours still ahead, as FrostRule.evaluate(_:from:) does",
        arguments: [FrostRule.default, FrostRule.legacy])
    func planningMatchesEvaluateFrom(_ rule: FrostRule) throws {
        let places = [Fixtures.place(1, device, "Home", settings: AlertSettings(rule: rule.name))]
        let night = LocalDate(year: 2026, month: 10, day: 24)
        let start = Self.dstNight.hours[0].time
        for step in stride(from: Int64(0), through: 40 * 3_600, by: 1_800) {
            let now = start + step
            let verdict = rule.evaluate(Self.dstNight.hours, from: now).nights.first { $0.night == night }
            let alert = plan(Self.dstNight, places, now: now).alerts.first { $0.event.night == night }
            #expect((alert?.event.level ?? FrostLevel.none) == (verdict?.level ?? FrostLevel.none), "now = \(now)")
            if let alert { #expect(alert.minimumC == verdict?.minimumC, "now = \(now)") }
            // Dropping the hours that are over changes nothing.
            var ahead = Self.dstNight
            ahead.hours.removeAll { $0.hasEnded(at: now) }
            #expect(plan(ahead, places, now: now).alerts == plan(Self.dstNight, places, now: now).alerts, "now = \(now)")
        }
    }
}
