import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Testing

/// Runs at chosen Helsinki hours (12–13 May, UTC+3) for a subscription that takes alerts
/// 16:00–22:00 only, frozen clock.
@Suite("Notifier runs with delivery windows")
struct DeliveryWindowNotifierTests {
    let device = Fixtures.token(0x3d0e)
    let evening = DeliveryWindow(afterMinute: 16 * 60, beforeMinute: 22 * 60)!
    let day = Fixtures.day

    func at(_ date: LocalDate, _ hour: Int) -> Int64 { Fixtures.instant(date, hour) }

    /// Mild, but `low` °C in the hours `frost` of the morning after the 12th.
    func night(low: Double, hours frost: Range<Int>) -> BoxForecast {
        Fixtures.forecast { date, hour in date == Fixtures.day.next && frost.contains(hour) ? low : 8 }
    }

    func harness(quiet: QuietHours? = nil, breaksThrough: Bool = false) -> Harness {
        let h = Harness()
        h.store.register(device, at: 0, quietHours: quiet, hardFreezeBreaksQuietHours: breaksThrough)
        h.store.subscribe(device, box: Fixtures.box, name: "Garden", settings: AlertSettings(window: evening))
        return h
    }

    @Test("planned at 10:00: held; a 15:00 run leaves it; the 16:00 run sends it; later runs send nothing more")
    func heldUntilTheWindowOpens() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day, 10))
        let planned = try await h.run()
        #expect(planned.alertsPlanned == 1)
        #expect(planned.alertsHeld == 1)
        #expect(h.push.sent.isEmpty)
        #expect(h.store.outbox.map(\.entry.notBefore) == [at(day, 16)])

        h.clock.set(at(day, 15))
        let early = try await h.run()
        #expect(early.alertsPlanned == 0 && early.alertsDelivered == 0)
        #expect(h.push.sent.isEmpty)

        h.clock.set(at(day, 16))
        let open = try await h.run()
        #expect(open.alertsReleased == 1)
        #expect(open.alertsDelivered == 1)
        #expect(h.push.sent.count == 1)

        for hour in [17, 21] {
            h.clock.set(at(day, hour))
            let later = try await h.run()
            #expect(later.alertsPlanned == 0 && later.alertsDelivered == 0 && later.alertsReleased == 0)
        }
        #expect(h.push.sent.count == 1)
        #expect(h.store.outbox.map(\.status) == [.delivered])
    }

    @Test("planned at 19:00, inside the window: sent at once")
    func sentAtOnce() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day, 19))
        let summary = try await h.run()
        #expect(summary.alertsDelivered == 1)
        #expect(summary.alertsHeld == 0)
        #expect(h.push.sent.count == 1)
    }

    @Test("planned at 01:00 for a 03:00 frost: held until 16:00, then dropped as held-expired, though the frost window has ended too")
    func heldThenExpired() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day.next, 1))
        #expect(try await h.run().alertsHeld == 1)
        #expect(h.store.outbox.map(\.entry.notBefore) == [at(day.next, 16)])
        h.clock.set(at(day.next, 16))
        let dropped = try await h.run()
        #expect(dropped.alertsHeldExpired == 1)
        #expect(dropped.failed[.expired] == 1)
        #expect(dropped.alertsReleased == 0)
        #expect(h.push.sent.isEmpty)
        #expect(h.store.outbox.map(\.failureReason) == [OutboxEntry.heldExpired])
    }

    @Test("with quiet hours 22:00–07:00 too, planned at 23:00: held until the window opens at 16:00, not when quiet hours end at 07:00")
    func combinedWithQuietHours() async throws {
        let h = harness(quiet: QuietHours(startMinute: 22 * 60, endMinute: 7 * 60)!)
        h.forecasts.set(night(low: -1, hours: 20..<23))
        h.clock.set(at(day, 23))
        #expect(try await h.run().alertsHeld == 1)
        #expect(h.store.outbox.map(\.entry.notBefore) == [at(day.next, 16)])
        h.clock.set(at(day.next, 7))
        let morning = try await h.run()
        #expect(morning.alertsReleased == 0 && morning.alertsDelivered == 0)
        h.clock.set(at(day.next, 16))
        let open = try await h.run()
        #expect(open.alertsReleased == 1 && open.alertsDelivered == 1)
        #expect(h.push.sent.count == 1)
    }

    @Test("a hard freeze at 02:00 with break-through is sent at once, time-sensitive, outside the window")
    func breaksThrough() async throws {
        let h = harness(breaksThrough: true)
        h.forecasts.set(night(low: -4, hours: 3..<8))
        h.clock.set(at(day.next, 2))
        let summary = try await h.run()
        #expect(summary.alertsDelivered == 1)
        #expect(summary.alertsHeld == 0)
        #expect(h.push.sent.map(\.content.interruption) == [.timeSensitive])
    }

    @Test("an escalation while held replaces the held alert: at 16:00 one alert goes out, the escalated one")
    func escalationReplaces() async throws {
        let h = harness()
        h.forecasts.set(night(low: -1, hours: 3..<8))
        h.clock.set(at(day, 10))
        #expect(try await h.run().alertsHeld == 1)
        h.forecasts.set(night(low: -4, hours: 3..<8))
        h.clock.set(at(day, 13))
        #expect(try await h.run().alertsHeld == 1)
        #expect(h.store.outbox.map(\.failureReason) == [OutboxEntry.replacedWhileHeld, nil])
        h.clock.set(at(day, 16))
        let open = try await h.run()
        #expect(open.alertsReleased == 1 && open.alertsDelivered == 1)
        #expect(h.push.sent.map { $0.content.frost?.level } == [FrostLevel.hardFreeze.description])
    }
}
