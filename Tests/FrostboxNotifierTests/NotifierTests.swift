import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxNotifier
import Logging
import Synchronization
import Testing

@Suite("Notifier runs over the core's ports")
struct NotifierTests {
    let alice = Fixtures.token(0xa11ce)
    let bob = Fixtures.token(0xb0b)
    let carol = Fixtures.token(0xca401)

    /// Alice: Home and Garden in the frost box; Bob: Cabin there; Carol: a place in a mild box.
    func scenario(_ h: Harness) {
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(bob, box: Fixtures.box, name: "Cabin", unit: .fahrenheit)
        h.store.subscribe(alice, box: Fixtures.box, name: "Garden")
        h.store.subscribe(carol, box: Fixtures.otherBox, name: "Office")
        h.forecasts.set(Fixtures.frost(low: -1.6))
        h.forecasts.set(Fixtures.forecast(box: Fixtures.otherBox) { _, _ in 9 })
    }

    @Test("at its end a run purges the cached forecasts of boxes nobody subscribes to any more, a batch at a time")
    func purgesUnsubscribedForecasts() async throws {
        let h = Harness()
        scenario(h)
        // 1,500 boxes nobody subscribes to (more than one purge batch), and the frost box.
        let orphaned = (0..<1_500).map { GeoBox(Coordinate(uncheckedLatitude: -40 + Double($0) * 0.05, longitude: 100)) }
        let store = h.store
        let cache = InMemoryForecastCache(
            orphaned.map { box in Fixtures.forecast(box: box) { _, _ in 9 } } + [Fixtures.frost(low: -1.6)],
            subscribedBoxes: { store.subscribedBoxes })
        let clock = h.clock
        let notifier = Notifier(
            store: h.store, forecasts: h.forecasts, push: h.push, forecastCache: cache, logger: Logger(label: "test"),
            clock: { clock.now }, sleep: { _ in })
        let summary = try await h.run(notifier)
        #expect(summary.status == .completed)
        #expect(Set(cache.all.keys) == [Fixtures.box])
    }

    @Test("a run sends one alert per device and event, naming all of a device's places; the next run sends nothing")
    func oncePerDeviceAndEvent() async throws {
        let h = Harness()
        scenario(h)
        let summary = try await h.run()
        #expect(summary.status == .completed)
        #expect(summary.boxes == 2)
        #expect(summary.forecastsFetched == 2)
        #expect(summary.verdicts == 2)
        #expect(summary.alertsPlanned == 2)
        #expect(summary.alertsDelivered == 2)
        #expect(summary.alertsFailed == 0)
        let sent = Dictionary(uniqueKeysWithValues: h.push.sent.map { ($0.token, $0) })
        #expect(sent.count == 2)
        #expect(sent[alice]?.content.body == "Frost tonight at Home, Garden: low −2 °C around 05:00")
        #expect(sent[bob]?.content.body == "Frost tonight at Cabin: low 29 °F around 05:00")
        #expect(sent[carol] == nil)
        // Every outbox row delivered with the apns-id it was planned with.
        #expect(h.store.outbox.allSatisfy { $0.status == .delivered && $0.deliveredMessageID == $0.entry.notification.messageID })

        h.clock.advance(3600)
        let again = try await h.run()
        #expect(again.alertsPlanned == 0)
        #expect(h.push.sent.count == 2)
        #expect(h.store.runs.map(\.status) == [.completed, .completed])
    }

    @Test("kill -9 after the outbox write: the restarted notifier sends each alert once, with the original apns-id and collapse-id")
    func crashAfterOutboxWrite() async throws {
        let h = Harness()
        scenario(h)
        let crashing = CrashingPushSender(store: h.store, inner: h.push)
        _ = try await h.run(h.notifier(push: crashing))
        let disk = try #require(crashing.snapshot)
        let queued = disk.outbox
        #expect(queued.count == 2)
        #expect(queued.allSatisfy { $0.status == .pending })
        #expect(h.push.sent.isEmpty)

        // Restart on what was on disk.
        let restarted = Harness(store: disk, forecasts: h.forecasts)
        let summary = try await restarted.run()
        #expect(summary.alertsCarriedOver == 2)
        #expect(summary.alertsPlanned == 0)
        let sent = restarted.push.sent
        #expect(sent.count == 2)
        #expect(Set(sent.map(\.messageID)) == Set(queued.map(\.entry.notification.messageID)))
        #expect(Set(sent.compactMap(\.collapseID)) == Set(queued.compactMap(\.entry.notification.collapseID)))
        #expect(sent == queued.map(\.entry.notification))
        _ = try await restarted.run()
        #expect(restarted.push.sent.count == 2)
    }

    @Test("kill -9 during delivery: entries whose delivery is durable are never resent; the rest are, byte-identical")
    func crashDuringDelivery() async throws {
        var h = Harness()
        h.configuration.concurrency = 1
        for i in 0..<5 { h.store.subscribe(Fixtures.token(100 + i), box: Fixtures.box, name: "P\(i)") }
        h.forecasts.set(Fixtures.frost(low: -1))
        let crashing = CrashingPushSender(store: h.store, inner: h.push, passThrough: 2)
        _ = try await h.run(h.notifier(push: crashing))
        let disk = try #require(crashing.snapshot)
        // Outcomes are written in grouped commits while sending goes on: at the kill, the two
        // sent pushes may or may not have their delivery on disk yet.
        let durable = Set(disk.outbox.filter { $0.status == .delivered }.map(\.entry.notification.messageID))
        #expect(durable.isSubset(of: Set(h.push.sent.map(\.messageID))))
        #expect(disk.outbox.count == 5)

        let restarted = Harness(store: disk, forecasts: h.forecasts)
        _ = try await restarted.run()
        let resent = restarted.push.sent
        #expect(resent.count == 5 - durable.count)
        #expect(durable.isDisjoint(with: resent.map(\.messageID)))
        #expect(Set(resent.map(\.messageID)).union(durable) == Set(disk.outbox.map(\.entry.notification.messageID)))
        // A resend of a push sent before the kill is the same request.
        for push in resent {
            if let before = h.push.sent.first(where: { $0.messageID == push.messageID }) { #expect(before == push) }
        }
        #expect(restarted.store.outbox.allSatisfy { $0.status == .delivered })
    }

    @Test("temporary failures retry with backoff within the run; what still fails carries over with the same apns-id")
    func temporaryFailures() async throws {
        let h = Harness()
        scenario(h)
        h.push.script(alice, [.temporaryFailure(reason: "503"), .delivered(messageID: "x")])
        h.push.script(bob, Array(repeating: .temporaryFailure(reason: "503"), count: 3))
        let first = try await h.run()
        #expect(first.alertsDelivered == 1)
        #expect(first.failed[.temporary] == 1)
        #expect(h.sleeper.slept == [.seconds(2), .seconds(4)])
        let bobs = h.push.sent.filter { $0.token == bob }
        #expect(bobs.count == 3)
        #expect(Set(bobs.map(\.messageID)).count == 1)
        let row = try #require(h.store.outbox.first { $0.entry.token == bob })
        #expect(row.status == .pending)
        #expect(row.failure == .temporary)
        #expect(row.failureReason == "503")
        #expect(row.entry.attempts == 3)
        // Resends counted from the entries' attempts: alice's one retry and bob's two.
        #expect(h.resends.value == 3)

        let second = try await h.run()
        #expect(second.alertsCarriedOver == 1)
        #expect(second.alertsDelivered == 1)
        #expect(h.push.sent.last?.messageID == bobs[0].messageID)
        #expect(h.store.outbox.allSatisfy { $0.status == .delivered })
        // Bob's entry carried over from the first run: a resend too.
        #expect(h.resends.value == 4)
    }

    @Test("a permanent failure keeps its reason and is not sent again")
    func permanentFailure() async throws {
        let h = Harness()
        scenario(h)
        h.push.script(bob, [.permanentFailure(status: 400, reason: "BadCollapseId")])
        let summary = try await h.run()
        #expect(summary.failed[.permanent] == 1)
        let row = try #require(h.store.outbox.first { $0.entry.token == bob })
        #expect(row.status == .failed)
        #expect(row.failureReason == "400 BadCollapseId")
        _ = try await h.run()
        #expect(h.push.sent.filter { $0.token == bob }.count == 1)
    }

    @Test("an invalid token deletes the device and its subscriptions unless it registered again after the 410's timestamp")
    func pruning() async throws {
        let h = Harness()
        scenario(h)
        let dave = Fixtures.token(0xda4e)
        h.store.subscribe(dave, box: Fixtures.box, name: "Dacha")
        h.store.register(alice, at: 1_000)
        h.store.register(bob, at: 5_000)
        h.store.register(dave, at: 1_000)
        // Alice's token died at 2 000 s (after her registration): pruned.
        h.push.script(alice, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: 2_000_000)])
        // Bob registered again at 5 000 s, after the 410's 4 999.5 s: kept.
        h.push.script(bob, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: 4_999_500)])
        // 400 BadDeviceToken has no timestamp: the time of the send decides.
        h.push.script(dave, [.invalidToken(reason: "BadDeviceToken", unregisteredAtMilliseconds: nil)])
        let summary = try await h.run()
        #expect(summary.tokensPruned == 2)
        #expect(summary.failed[.invalidToken] == 3)
        #expect(!h.store.hasDevice(alice))
        #expect(h.store.hasDevice(bob))
        #expect(!h.store.hasDevice(dave))
        let left = try await h.store.places(in: [Fixtures.box])[Fixtures.box]?.map(\.token)
        #expect(left == [bob])
    }

    @Test("pushes are sent with bounded concurrency")
    func boundedConcurrency() async throws {
        let push = RecordingPushSender(holdUntilInFlight: 4)
        var h = Harness(push: push)
        h.configuration.concurrency = 4
        for i in 0..<20 { h.store.subscribe(Fixtures.token(500 + i), box: Fixtures.box, name: "P\(i)") }
        h.forecasts.set(Fixtures.frost(low: -1))
        let summary = try await h.run()
        #expect(summary.alertsDelivered == 20)
        #expect(push.maximumInFlight == 4)
    }

    @Test("boxes left out by the budget, and boxes whose fetch failed, go first next run, oldest first")
    func leftOutFirst() async throws {
        let forecasts = ScriptedForecastProvider(budget: 2)
        let h = Harness(forecasts: forecasts)
        let boxes = (0..<5).map { GeoBox(latitudeIndex: 1000 + $0, longitudeIndex: 500) }
        for (i, box) in boxes.enumerated() {
            h.store.subscribe(Fixtures.token(700 + i), box: box, name: "P\(i)")
            forecasts.set(Fixtures.forecast(box: box) { _, _ in 9 })
        }
        let first = try await h.run()
        #expect(first.forecastsFetched == 2)
        #expect(first.boxesLeftOut == 3)
        #expect(forecasts.calls[0] == boxes)
        let leftOut = Array(boxes[2...])

        // Next run: the three left out first; one of them now fails outright.
        forecasts.setBudget(nil)
        forecasts.fail(boxes[4], with: .timeout)
        h.clock.advance(3600)
        let second = try await h.run()
        #expect(forecasts.calls[1] == leftOut + boxes[0..<2])
        #expect(second.boxesFailed == 1)
        #expect(h.store.fetchStates[boxes[4]]?.failure == "timeout")

        // Box 4 has been failing since the first run; box 2 recovered: 4 first, then by oldest success.
        forecasts.set(Fixtures.forecast(box: boxes[4]) { _, _ in 9 })
        h.clock.advance(3600)
        _ = try await h.run()
        #expect(forecasts.calls[2].first == boxes[4])
        #expect(Array(forecasts.calls[2].dropFirst()) == [boxes[0], boxes[1], boxes[2], boxes[3]])
    }

    @Test("an entry whose frost window ended before delivery is not sent")
    func expiredEntries() async throws {
        let h = Harness()
        scenario(h)
        let crashing = CrashingPushSender(store: h.store, inner: h.push)
        _ = try await h.run(h.notifier(push: crashing))
        let disk = try #require(crashing.snapshot)
        let restarted = Harness(store: disk, forecasts: h.forecasts)
        restarted.clock.set(Fixtures.instant(Fixtures.day.next, 11))
        let summary = try await restarted.run()
        #expect(summary.failed[.expired] == 2)
        #expect(restarted.push.sent.isEmpty)
        #expect(disk.outbox.allSatisfy { $0.status == .failed && $0.failure == .expired })
    }

    @Test("an auth failure holds the rest of that app's alerts pending for the next run")
    func authFailure() async throws {
        var h = Harness()
        h.configuration.concurrency = 1
        for i in 0..<4 { h.store.subscribe(Fixtures.token(900 + i), box: Fixtures.box, name: "P\(i)") }
        h.forecasts.set(Fixtures.frost(low: -1))
        h.push.script(Fixtures.token(900), [.authFailure(reason: "InvalidProviderToken")])
        let summary = try await h.run()
        // The refused one and the three held back: every entry not delivered is counted.
        #expect(summary.failed[.auth] == 4)
        #expect(h.push.sent.count == 1)
        #expect(h.store.outbox.allSatisfy { $0.status == .pending })
        // Held entries were not sent: only the refused one has an attempt.
        #expect(h.store.outbox.map(\.entry.attempts).sorted() == [0, 0, 0, 1])
        let next = try await h.run()
        #expect(next.alertsDelivered == 4)
    }

    @Test("runs never overlap: a second run or trigger while one is going answers already running")
    func noOverlap() async throws {
        let push = RecordingPushSender(holdUntilInFlight: 99)
        let h = Harness(push: push)
        scenario(h)
        let notifier = h.notifier()
        #expect(try await notifier.trigger() == .started(runID: 1))
        while push.sent.isEmpty { await Task.yield() }
        #expect(await notifier.isRunning)
        #expect(try await notifier.run() == .alreadyRunning)
        #expect(try await notifier.trigger() == .alreadyRunning)
        push.release()
        let summary = try #require(await notifier.triggeredRun())
        #expect(summary.alertsDelivered == 2)
        #expect(await !notifier.isRunning)
        guard case .completed = try await notifier.run() else {
            Issue.record("a run after the first should start")
            return
        }
        // Another process holding the database's run lock.
        #expect(try await h.notifier(lock: HeldLock()).run() == .alreadyRunning)
    }

    @Test("a triggered run told to stop finishes its current batch, stores its summary, and the next run sends the rest")
    func stopTriggeredRun() async throws {
        let push = RecordingPushSender(holdUntilInFlight: 99)
        var h = Harness(push: push)
        h.configuration.boxesPerChunk = 1
        h.store.subscribe(alice, box: Fixtures.box, name: "Home")
        h.store.subscribe(carol, box: Fixtures.otherBox, name: "Office")
        h.forecasts.set(Fixtures.frost(low: -2))
        h.forecasts.set(Fixtures.frost(low: -2, box: Fixtures.otherBox))
        let notifier = h.notifier()
        #expect(try await notifier.trigger() == .started(runID: 1))
        // The first box's alert is in flight when shutdown asks the run to stop.
        while push.sent.isEmpty { await Task.yield() }
        await notifier.cancelTriggeredRun()
        push.release()
        let summary = try #require(await notifier.stopTriggeredRun())
        #expect(summary.status == .interrupted)
        // The second box is planned and queued while the first one's alert is in flight (or
        // not yet, if the stop came first); it is never sent by the stopped run.
        #expect((1...2).contains(summary.alertsPlanned))
        #expect(summary.alertsDelivered == 1)
        #expect(push.sent.count == 1)
        #expect(h.store.runs.last?.status == .interrupted)
        // Nothing is lost: the next run sends the other box's alert (queued, or planned now), once.
        let next = try await h.run(notifier)
        #expect(next.alertsDelivered == 1)
        #expect(next.alertsPlanned + next.alertsCarriedOver == 1)
        #expect(summary.alertsPlanned + next.alertsPlanned == 2)
        #expect(Set(push.sent.map(\.token)) == [alice, carol])
        #expect(push.sent.count == 2)
    }

    @Test("a dry run plans but stores and sends nothing")
    func dryRun() async throws {
        let h = Harness()
        scenario(h)
        let seen = Mutex<[OutboxEntry]>([])
        let result = try await h.notifier().run(dryRun: true) { entries in seen.withLock { $0 += entries } }
        guard case .completed(let summary) = result else {
            Issue.record("dry run did not run")
            return
        }
        #expect(summary.alertsPlanned == 2)
        #expect(seen.withLock { $0.count } == 2)
        #expect(h.push.sent.isEmpty)
        #expect(h.store.outbox.isEmpty)
        #expect(h.store.runs.isEmpty)
        #expect(h.store.fetchStates.isEmpty)
    }

    @Test("a run row left running by a dead process is marked interrupted at the next start")
    func interruptedRuns() async throws {
        let h = Harness()
        scenario(h)
        _ = try await h.store.startRun(at: 1)
        _ = try await h.run()
        #expect(h.store.runs.map(\.status) == [.interrupted, .completed])
        #expect(try await h.store.recentRuns(limit: 1).first?.id == 2)
    }
}
