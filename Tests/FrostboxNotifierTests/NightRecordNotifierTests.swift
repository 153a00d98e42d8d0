import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Testing

/// Issue #48: a notify run keeps each box's nights (the last verdict before the night began)
/// and the alerts that went out for them.
@Suite("Notifier: kept nights")
struct NightRecordNotifierTests {
    let alice = Fixtures.token(1)
    let carol = Fixtures.token(3)
    static let tonight = Fixtures.day

    func harness() -> Harness {
        let h = Harness()
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(carol, box: Fixtures.otherBox, name: "Office")
        h.forecasts.set(Fixtures.frost(low: -1))
        h.forecasts.set(Fixtures.forecast(box: Fixtures.otherBox) { _, _ in 9 })
        return h
    }

    func record(_ h: Harness, _ box: GeoBox = Fixtures.box, night: LocalDate = tonight) async throws -> NightRecord? {
        try await h.store.nightRecords(in: [box]).first { $0.verdict.night == night }
    }

    @Test("the nights ahead are kept with their verdict, and the alert sent with its level, time and lead")
    func keepsNightsAndAlerts() async throws {
        let h = harness()
        let summary = try await h.run()
        #expect(summary.alertsPlanned == 1)
        // 96 hours from midnight at 14:00: the nights of the 12th, 13th and 14th lie ahead whole;
        // the 11th's is under way, the 15th's cut by the horizon.
        let nights = try await h.store.nightRecords(in: [Fixtures.box, Fixtures.otherBox])
        #expect(nights.filter { $0.verdict.box == Fixtures.box }.map(\.verdict.night) == [Self.tonight, Self.tonight.next, Self.tonight.next.next])
        #expect(nights.count == 6)
        let frost = try #require(try await record(h))
        #expect(frost.verdict.level == .freeze && frost.verdict.minimumC == -1)
        #expect(frost.verdict.windowStart == Fixtures.instant(Self.tonight, 18) && frost.verdict.utcOffsetSeconds == 10_800)
        #expect(frost.verdict.judgedAt == Fixtures.afternoon)
        #expect(frost.alertedLevel == .freeze && frost.firstAlertAt == Fixtures.afternoon && frost.lead == .sameNight)
        let calm = try #require(try await record(h, Fixtures.otherBox))
        #expect(calm.verdict.level == .none && calm.alertedLevel == .none && calm.firstAlertAt == nil)
    }

    @Test("a cached forecast keeps the verdict kept; a fetched one before the night replaces it, one during the night does not")
    func lastVerdictBeforeTheNight() async throws {
        let h = harness()
        _ = try await h.run()
        // An hour later, the same night colder — but from the cache: nothing new is kept.
        h.clock.advance(3_600)
        h.forecasts.set(Fixtures.frost(low: -3), cached: true)
        _ = try await h.run()
        #expect(try await record(h)?.verdict.level == .freeze)
        // Fetched: kept, and its escalation raises the alerted level; the first alert stays the first.
        h.clock.advance(3_600)
        h.forecasts.set(Fixtures.frost(low: -3))
        _ = try await h.run()
        let colder = try #require(try await record(h))
        #expect(colder.verdict.level == .hardFreeze && colder.verdict.judgedAt == Fixtures.afternoon + 7_200)
        #expect(colder.alertedLevel == .hardFreeze && colder.firstAlertAt == Fixtures.afternoon)
        // At 19:00 the night has begun: a mild forecast fetched then changes nothing kept.
        h.clock.set(Fixtures.instant(Self.tonight, 19))
        h.forecasts.set(Fixtures.forecast { _, _ in 9 })
        _ = try await h.run()
        #expect(try await record(h)?.verdict.level == .hardFreeze)
        #expect(try await record(h, night: Self.tonight.next)?.verdict.judgedAt == Fixtures.instant(Self.tonight, 19))
    }

    @Test("nights are purged once ended longer ago than the retention; with verification off none are kept")
    func purgeAndOff() async throws {
        var h = harness()
        h.configuration.nightRetentionSeconds = 3_600
        _ = try await h.run()
        // Two hours after tonight's window ended (10:00 on the 13th): tonight goes, the next nights stay.
        h.clock.set(Fixtures.instant(Self.tonight.next, 12))
        _ = try await h.run()
        let left = try await h.store.nightRecords(in: [Fixtures.box]).map(\.verdict.night)
        #expect(!left.contains(Self.tonight) && left.contains(Self.tonight.next))

        var off = harness()
        off.configuration.keepNights = false
        _ = try await off.run()
        #expect(try await off.store.nightRecords(in: [Fixtures.box, Fixtures.otherBox]).isEmpty)
    }
}
