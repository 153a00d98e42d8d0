import FrostboxCore
import FrostboxFixtures
import Testing

/// Alerts by chance of frost (issue #47): with an ensemble for the box, a subscription whose
/// minimum probability is above 0 is alerted when a level's probability reaches it, escalated
/// when a higher level's does, and cleared when the alerted level's falls below it.
@Suite("Alert planning by chance of frost (pure)")
struct ProbabilityAlertTests {
    let planner = AlertPlanner()
    let device = Fixtures.token(1)
    let freeze = FrostEvent(box: Fixtures.box, night: Fixtures.day, level: .freeze)

    /// The deterministic forecast: 8 °C all night (no frost by the verdict).
    let mild = Fixtures.forecast { _, _ in 8 }

    /// An ensemble whose member `i` has `lows[i]` at 05:00 after `Fixtures.day`'s evening, 8 °C otherwise.
    func ensemble(_ lows: [Double]) -> EnsembleForecast {
        let hours = mild.hours
        let members = lows.map { low in hours.map { $0.local.date == Fixtures.day.next && $0.local.hour == 5 ? low : 8 } as [Double?] }
        return EnsembleForecast(box: Fixtures.box, hours: hours, values: .members(members), model: "icon_seamless")
    }

    func plan(
        _ ensemble: EnsembleForecast?, minimum: Double? = nil, allClear: Bool = false, alerted: [AlertedEvent] = [], forecast: BoxForecast? = nil
    ) -> [PlannedAlert] {
        let place = Fixtures.place(1, device, "Home", settings: AlertSettings(allClear: allClear, minProbability: minimum))
        return planner.plan(forecast: forecast ?? mild, ensemble: ensemble, places: [place], alerted: alerted, now: Fixtures.afternoon).alerts
    }

    /// Six of ten members freeze (−1 °C), four stay at +2 °C.
    var sixOfTen: EnsembleForecast { ensemble([-1, -1, -1, -1, -1, -1, 2, 2, 2, 2]) }

    @Test("a level is alerted when its chance reaches the default 0.5, though the forecast alone says no frost; the alert says how likely")
    func alertedByChance() throws {
        let alert = try #require(plan(sixOfTen).first)
        #expect(alert.event == freeze)
        #expect(alert.kind == .frost)
        #expect(alert.probability == 0.6)
        #expect(alert.thresholdC == 0)
        #expect(alert.text.title == "Frost warning")
        #expect(alert.text.body == "Frost likely tonight: 60 % chance of 0 °C or lower at Home")
        #expect(alert.bodyLocKey == "FROST_FREEZE_TONIGHT_PROBABILITY")
        #expect(Array(alert.locArgs.suffix(2)) == ["60", "0 °C"])
        let content = alert.notification().content
        #expect(content.frost?.probability == 60)
        #expect(content.frost?.level == "freeze")
    }

    @Test("a higher minimum alerts a lower level only; a minimum no level reaches alerts nothing")
    func minimumPerSubscription() throws {
        // P(≤ 3 °C) = 1: frost risk, almost certain; P(≤ 0 °C) = 0.6 is below 0.7.
        let alert = try #require(plan(sixOfTen, minimum: 0.7).first)
        #expect(alert.event.level == .frostRisk)
        #expect(alert.probability == 1)
        #expect(alert.text.body == "Frost risk almost certain tonight: 100 % chance of 3 °C or lower at Home")
        #expect(plan(ensemble([4, 4, 4, 2]), minimum: 0.8).isEmpty)
    }

    @Test("min_probability 0 keeps the deterministic verdict: the ensemble is not looked at")
    func deterministicWhenZero() throws {
        #expect(plan(sixOfTen, minimum: 0).isEmpty)
        let frosty = try #require(plan(sixOfTen, minimum: 0, forecast: Fixtures.frost(low: -1.6)).first)
        #expect(frosty.probability == nil)
        #expect(frosty.text.body == "Frost tonight at Home: low −2 °C around 05:00")
        #expect(frosty.bodyLocKey == "FROST_FREEZE_TONIGHT")
        #expect(frosty.notification().content.frost?.probability == nil)
    }

    @Test("no ensemble for the box (budget, failure): the deterministic verdict decides")
    func fallback() throws {
        #expect(plan(nil).isEmpty)
        let alert = try #require(plan(nil, forecast: Fixtures.frost(low: -1.6)).first)
        #expect(alert.event.level == .freeze)
        #expect(alert.probability == nil)
    }

    @Test("escalated when a higher level's chance reaches the minimum")
    func escalation() throws {
        let colder = ensemble([-3, -3, -3, -3, -3, -3, 1, 1, 1, 1])
        let alert = try #require(plan(colder, alerted: [AlertedEvent(token: device, event: freeze, kind: .frost)]).first)
        #expect(alert.kind == .escalation)
        #expect(alert.event.level == .hardFreeze)
        #expect(alert.probability == 0.6)
        #expect(alert.thresholdC == -2)
        #expect(alert.bodyLocKey == "FROST_HARD_FREEZE_TONIGHT_PROBABILITY")
        // The same chance again: nothing new.
        #expect(plan(sixOfTen, alerted: [AlertedEvent(token: device, event: freeze, kind: .frost)]).isEmpty)
    }

    @Test("all-clear once the alerted level's chance falls below the minimum, not at it")
    func allClear() throws {
        let alerted = [AlertedEvent(token: device, event: freeze, kind: .frost)]
        let warmer = ensemble([-1, -1, -1, 2, 2, 2, 2, 2, 2, 2])
        let clear = try #require(plan(warmer, allClear: true, alerted: alerted).first)
        #expect(clear.kind == .allClear)
        #expect(clear.probability == 0.3)
        #expect(clear.text.body == "Frost no longer likely tonight at Home: 30 % chance of 0 °C or lower")
        #expect(clear.bodyLocKey == "FROST_ALL_CLEAR_TONIGHT_PROBABILITY")
        let even = ensemble([-1, -1, -1, -1, -1, 2, 2, 2, 2, 2])
        #expect(plan(even, allClear: true, alerted: alerted).isEmpty)
        #expect(plan(warmer, allClear: false, alerted: alerted).isEmpty)
    }

    @Test("hours already over are not counted: a member cold only in an hour that has ended does not freeze")
    func endedHours() throws {
        // At 06:00 the next morning, the 05:00 low is over; the night is still under way.
        let now = Fixtures.instant(Fixtures.day.next, 6)
        let place = Fixtures.place(1, device, "Home")
        #expect(planner.plan(forecast: mild, ensemble: sixOfTen, places: [place], alerted: [], now: now).alerts.isEmpty)
    }
}
