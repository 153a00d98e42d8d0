import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Testing

/// Runs at chosen Helsinki hours (12–13 May, UTC+3) for a device with quiet hours 22:00–07:00.
@Suite("Notifier runs with quiet hours")
struct QuietHoursNotifierTests {
    let device = Fixtures.token(0x9a1e)
    let quiet = QuietHours(startMinute: 22 * 60, endMinute: 7 * 60)!
    let day = Fixtures.day

    func at(_ date: LocalDate, _ hour: Int) -> Int64 { Fixtures.instant(date, hour) }

    /// Mild, but `low` °C in the hours `frost` of the morning after the 12th.
    func night(low: Double, hours frost: Range<Int>) -> BoxForecast {
        Fixtures.forecast { date, hour in date == Fixtures.day.next && frost.contains(hour) ? low : 8 }
    }

    func harness(breaksThrough: Bool = false, allClear: Bool = false) -> Harness {
        let h = Harness()
        h.store.register(device, at: 0, quietHours: quiet, hardFreezeBreaksQuietHours: breaksThrough)
        h.store.subscribe(device, box: Fixtures.box, name: "Garden", settings: AlertSettings(allClear: allClear))
        return h
    }

    @Test("planned at 23:00: held; at 07:00 dropped as held-expired because the 03:00 frost is under way")
    func heldThenExpired() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day, 23))
        let first = try await h.run()
        #expect(first.alertsPlanned == 1)
        #expect(first.alertsHeld == 1)
        #expect(first.alertsDelivered == 0)
        #expect(h.push.sent.isEmpty)
        #expect(h.store.outbox.map(\.status) == [.pending])

        h.clock.set(at(day.next, 7))
        let second = try await h.run()
        #expect(second.alertsHeldExpired == 1)
        #expect(second.failed[.expired] == 1)
        #expect(second.alertsReleased == 0)
        #expect(h.push.sent.isEmpty)
        #expect(h.store.outbox.map(\.failureReason) == [OutboxEntry.heldExpired])
        #expect(second.line.contains(" held=0 released=0 held-expired=1 "))
    }

    @Test("runs inside quiet hours before they end leave the held entry alone")
    func staysHeldUntilTheSpanEnds() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 8..<9))
        h.clock.set(at(day, 23))
        _ = try await h.run()
        h.clock.set(at(day.next, 6))
        let early = try await h.run()
        #expect(early.alertsPlanned == 0)
        #expect(early.alertsCarriedOver == 0)
        #expect(h.push.sent.isEmpty)
        h.clock.set(at(day.next, 7))
        let open = try await h.run()
        #expect(open.alertsReleased == 1)
        #expect(open.alertsDelivered == 1)
        #expect(h.push.sent.count == 1)
    }

    @Test("planned at 18:00, before quiet hours: sent at once")
    func sentAtOnce() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day, 18))
        let summary = try await h.run()
        #expect(summary.alertsDelivered == 1)
        #expect(summary.alertsHeld == 0)
        #expect(h.push.sent.count == 1)
    }

    @Test("a hard freeze at 02:00 with break-through is sent at once, time-sensitive")
    func breaksThrough() async throws {
        let h = harness(breaksThrough: true)
        h.forecasts.set(night(low: -4, hours: 3..<8))
        h.clock.set(at(day.next, 2))
        let summary = try await h.run()
        #expect(summary.alertsDelivered == 1)
        #expect(summary.alertsHeld == 0)
        #expect(h.push.sent.map(\.content.interruption) == [.timeSensitive])
    }

    @Test("an escalation while held replaces the held alert: one alert goes out, the escalated one")
    func escalationReplaces() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 8..<9))
        h.clock.set(at(day, 23))
        #expect(try await h.run().alertsHeld == 1)
        h.forecasts.set(night(low: -4, hours: 8..<9))
        h.clock.set(at(day.next, 1))
        let escalated = try await h.run()
        #expect(escalated.alertsPlanned == 1)
        #expect(escalated.alertsHeld == 1)
        #expect(h.store.outbox.map(\.failureReason) == [OutboxEntry.replacedWhileHeld, nil])
        h.clock.set(at(day.next, 7))
        let released = try await h.run()
        #expect(released.alertsReleased == 1)
        #expect(released.alertsDelivered == 1)
        #expect(h.push.sent.count == 1)
        #expect(h.push.sent.first?.content.frost?.level == FrostLevel.hardFreeze.description)
        // The person never saw the held alert: the one they get reads as a first alert.
        #expect(h.push.sent.first?.content.title == "Hard frost warning")
        #expect(h.push.sent.first?.content.titleLocKey == "FROST_TITLE_HARD_FREEZE")
    }

    @Test("an all-clear while held cancels the held alert: the person gets neither")
    func allClearCancels() async throws {
        let h = harness(allClear: true)
        h.forecasts.set(night(low: -1, hours: 8..<9))
        h.clock.set(at(day, 23))
        #expect(try await h.run().alertsHeld == 1)
        h.forecasts.set(night(low: 8, hours: 8..<9))
        h.clock.set(at(day.next, 1))
        let cleared = try await h.run()
        #expect(cleared.alertsPlanned == 0)
        #expect(h.store.outbox.map(\.status) == [.failed, .failed])
        #expect(h.store.outbox.map(\.failureReason) == [OutboxEntry.replacedWhileHeld, OutboxEntry.cancelledWhileHeld])
        h.clock.set(at(day.next, 7))
        let later = try await h.run()
        #expect(later.alertsPlanned == 0)
        #expect(h.push.sent.isEmpty)
    }

    @Test("a held entry survives a kill -9 and a restarted notifier releases it once")
    func heldSurvivesKill() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 8..<9))
        h.clock.set(at(day, 23))
        _ = try await h.run()
        // What was on disk at that moment, run by a new process.
        let restarted = Harness(store: h.store.snapshot(), forecasts: h.forecasts)
        restarted.clock.set(at(day.next, 7))
        let release = try await restarted.run()
        #expect(release.alertsReleased == 1)
        restarted.clock.set(at(day.next, 8))
        let after = try await restarted.run()
        #expect(after.alertsPlanned == 0 && after.alertsDelivered == 0)
        #expect(restarted.push.sent.count == 1)
        #expect(h.push.sent.isEmpty)
    }
}
