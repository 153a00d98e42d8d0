import FrostboxCore
import FrostboxPostgres
import Logging
import TestPostgres
import Testing

/// The PostgreSQL work queue of shared notify runs, with two workers on one database: who
/// starts and who joins, exclusive claims, lease expiry and take-over, and closing a run.
@Suite("shared notify runs on PostgreSQL", .requiresPostgres, .backgroundWorkScoped)
struct SharedRunTests {
    static let lease: Int64 = 10
    static let now: Int64 = 1_774_000_000

    /// A fresh database with `boxes` subscribed boxes (one device each), and two workers on it.
    static func setUp(boxes: Int) async throws -> (a: PostgresNotifierStore, b: PostgresNotifierStore, subscriptions: PostgresSubscriptionStore) {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let name = try await cluster.createDatabaseOffThePool(prefix: "shared")
        let database = try await PostgresDatabase.openedInTestScope(
            settings: PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable),
            maximumConnections: 4, logger: PostgresDatabaseTests.quiet)
        let subscriptions = PostgresSubscriptionStore(database: database)
        for index in 0..<boxes {
            let tail = String(index, radix: 16)
            let token = DeviceToken(trusted: "ee" + String(repeating: "0", count: 30 - tail.count) + tail)
            let place = try Coordinate(latitude: 60.002 + Double(index) * 0.05, longitude: 24.002)
            _ = try await subscriptions.subscribe(token, to: NewSubscription(coordinate: place, name: try PlaceName("P\(index)")), at: now)
        }
        return (
            PostgresNotifierStore(database: database, worker: "a", leaseSeconds: lease),
            PostgresNotifierStore(database: database, worker: "b", leaseSeconds: lease), subscriptions
        )
    }

    @Test("the first worker starts a run listing every box; the second joins it; a scheduled start right after makes none")
    func startAndJoin() async throws {
        let (a, b, _) = try await Self.setUp(boxes: 5)
        let started = try #require(try await a.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil))
        #expect(started.started && started.boxes == 5)
        let joined = try #require(try await b.joinOrStartRun(at: Self.now + 1, startNew: true, startedAfter: nil))
        #expect(joined == NotifyRunJoin(runID: started.runID, started: false, boxes: 5))
        // Both finish: the run is closed; a scheduled start within the window makes no new run.
        #expect(try await a.claimBoxes(runID: started.runID, limit: 10, at: Self.now + 2).count == 5)
        try await a.completeBoxes(runID: started.runID, try await Self.allBoxes(a), at: Self.now + 3)
        _ = try await b.finishPart(NotifyRunSummary(id: started.runID, startedAt: Self.now + 1), at: Self.now + 4)
        _ = try await a.finishPart(NotifyRunSummary(id: started.runID, startedAt: Self.now), at: Self.now + 4)
        #expect(try await b.joinOrStartRun(at: Self.now + 5, startNew: true, startedAfter: Self.now - 60) == nil)
        #expect(try await b.joinOrStartRun(at: Self.now + 5, startNew: false, startedAfter: nil) == nil)
        let next = try #require(try await b.joinOrStartRun(at: Self.now + 5, startNew: true, startedAfter: nil))
        #expect(next.started && next.runID > started.runID)
    }

    @Test("claims are exclusive and in run order; an expired lease is taken over; done boxes are never handed out again")
    func claimsAndLeases() async throws {
        let (a, b, _) = try await Self.setUp(boxes: 6)
        let run = try #require(try await a.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)).runID
        _ = try await b.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)
        let first = try await a.claimBoxes(runID: run, limit: 2, at: Self.now)
        let second = try await b.claimBoxes(runID: run, limit: 2, at: Self.now)
        #expect(first.count == 2 && second.count == 2)
        #expect(Set(first).isDisjoint(with: second))
        try await a.completeBoxes(runID: run, first, at: Self.now + 1)
        // b stops renewing; within the lease nobody else gets its boxes.
        let rest = try await a.claimBoxes(runID: run, limit: 10, at: Self.now + 2)
        #expect(rest.count == 2 && Set(rest).isDisjoint(with: second))
        #expect(try await a.remainingWork(runID: run, at: Self.now + 2).boxes == 4)
        // After it, a takes them over; what a completed is never handed out again.
        let takenOver = try await a.claimBoxes(runID: run, limit: 10, at: Self.now + Self.lease + 1)
        #expect(Set(takenOver) == Set(second))
        try await a.completeBoxes(runID: run, rest + takenOver, at: Self.now + Self.lease + 2)
        #expect(try await b.claimBoxes(runID: run, limit: 10, at: Self.now + 10 * Self.lease).isEmpty)
        #expect(try await a.remainingWork(runID: run, at: Self.now + Self.lease + 2).isEmpty)
        // Renewed leases hold: a's heartbeat keeps its claims past the first lease.
        let workers = try await a.workers(ofRuns: [run])[run] ?? []
        #expect(workers.map(\.worker).sorted() == ["a", "b"])
        #expect(workers.first { $0.worker == "a" }?.boxes == 6)
    }

    @Test("a renewed lease is kept past its first expiry; an entry's claim holds until it expires, then another worker takes it")
    func renewalAndEntryClaims() async throws {
        let (a, b, subscriptions) = try await Self.setUp(boxes: 2)
        let run = try #require(try await a.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)).runID
        _ = try await b.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)
        let claimed = try await a.claimBoxes(runID: run, limit: 1, at: Self.now)
        try await a.renewLeases(runID: run, at: Self.now + Self.lease - 1)
        #expect(try await b.claimBoxes(runID: run, limit: 10, at: Self.now + Self.lease + 1).count == 1, "only the box a does not hold")
        _ = claimed
        // An entry written by a is claimed by a until its lease runs out.
        let token = try #require(try await subscriptions.subscriptions(of: DeviceToken(trusted: "ee000000000000000000000000000000")).first?.token)
        let event = FrostEvent(box: try Coordinate(latitude: 60.002, longitude: 24.002).box, night: LocalDate(year: 2026, month: 11, day: 24), level: .freeze)
        let entry = OutboxEntry(
            event: event, kind: .frost,
            notification: PushNotification(token: token, messageID: event.messageID(for: token), content: AlertContent()),
            createdAt: Self.now)
        #expect(try await a.enqueue([entry], runID: run).count == 1)
        #expect(try await a.claimPendingOutbox(runID: run, limit: 10, at: Self.now + 1).isEmpty, "a's own entry is not handed out again")
        #expect(try await b.claimPendingOutbox(runID: run, limit: 10, at: Self.now + 1).isEmpty, "a holds it")
        #expect(try await b.remainingWork(runID: run, at: Self.now + 1).claimedEntries == 1)
        // a's heartbeat (renewed at lease - 1) goes stale: b takes the entry over.
        try await b.renewLeases(runID: run, at: Self.now + 2 * Self.lease)
        #expect(try await b.remainingWork(runID: run, at: Self.now + 2 * Self.lease).claimedEntries == 0)
        let taken = try await b.claimPendingOutbox(runID: run, limit: 10, at: Self.now + 2 * Self.lease)
        #expect(taken.map(\.notification.messageID) == [entry.notification.messageID])
        #expect(try await a.claimPendingOutbox(runID: run, limit: 10, at: Self.now + 2 * Self.lease + 1).isEmpty, "b holds it now")
        // In the next run, what is still pending is anybody's.
        #expect(try await a.claimPendingOutbox(runID: run + 1, limit: 10, at: Self.now + 2 * Self.lease + 2).count == 1)
    }

    @Test("the last worker to finish closes the run with the sum of every part; a worker that died is left out")
    func closing() async throws {
        let (a, b, _) = try await Self.setUp(boxes: 3)
        let run = try #require(try await a.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)).runID
        _ = try await b.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)
        try await a.completeBoxes(runID: run, try await a.claimBoxes(runID: run, limit: 10, at: Self.now), at: Self.now)
        var partA = NotifyRunSummary(id: run, startedAt: Self.now)
        partA.alertsPlanned = 5
        partA.alertsDelivered = 5
        partA.forecastsFetched = 3
        partA.finishedAt = Self.now + 4
        // b is alive (its heartbeat is fresh): a's finish does not close the run.
        #expect(try await a.finishPart(partA, at: Self.now + 4) == false)
        var partB = NotifyRunSummary(id: run, startedAt: Self.now + 1)
        partB.alertsCarriedOver = 2
        partB.alertsDelivered = 2
        partB.finishedAt = Self.now + 6
        #expect(try await b.finishPart(partB, at: Self.now + 6))
        let summary = try #require(try await a.recentRuns(limit: 1).first)
        #expect(summary.id == run)
        #expect(summary.status == .completed)
        #expect(summary.boxes == 3)
        #expect(summary.alertsPlanned == 5 && summary.alertsDelivered == 7 && summary.alertsCarriedOver == 2)
        #expect(summary.startedAt == Self.now && summary.finishedAt == Self.now + 6)

        // A run whose other worker died: the survivor closes it once the dead one's heartbeat is stale.
        let next = try #require(try await a.joinOrStartRun(at: Self.now + 100, startNew: true, startedAfter: nil)).runID
        _ = try await b.joinOrStartRun(at: Self.now + 100, startNew: true, startedAfter: nil)
        try await a.completeBoxes(runID: next, try await a.claimBoxes(runID: next, limit: 10, at: Self.now + 100), at: Self.now + 101)
        #expect(try await a.finishPart(NotifyRunSummary(id: next, startedAt: Self.now + 100), at: Self.now + 100 + Self.lease + 1))
        // And a run nobody renews is marked interrupted when the next one starts; being no run
        // that went through, it does not hold back a scheduled start.
        let abandoned = try #require(try await a.joinOrStartRun(at: Self.now + 200, startNew: true, startedAfter: nil)).runID
        let after = try #require(
            try await b.joinOrStartRun(at: Self.now + 200 + Self.lease + 1, startNew: true, startedAfter: Self.now + 150))
        #expect(after.started && after.runID != abandoned)
        #expect(try await a.recentRuns(limit: 2).last?.status == .interrupted)
    }

    @Test("a worker that finished its part and joined the run again adds its second part to its first: the run's sum keeps both")
    func rejoinedWorker() async throws {
        let (a, b, _) = try await Self.setUp(boxes: 3)
        let run = try #require(try await a.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)).runID
        _ = try await b.joinOrStartRun(at: Self.now, startNew: true, startedAfter: nil)
        try await a.completeBoxes(runID: run, try await a.claimBoxes(runID: run, limit: 10, at: Self.now), at: Self.now)
        var first = NotifyRunSummary(id: run, startedAt: Self.now)
        first.alertsPlanned = 12
        first.alertsDelivered = 11
        first.failed = [.temporary: 1]
        first.status = .failed
        first.error = "could not record the outcomes of 1 push already sent"
        first.finishedAt = Self.now + 4
        #expect(try await a.finishPart(first, at: Self.now + 4) == false, "b is still on the run")
        // a joins the run it finished again (b still renews it), finds nothing to do, and finishes an empty part.
        #expect(try await a.joinOrStartRun(at: Self.now + 5, startNew: false, startedAfter: nil)?.runID == run)
        var empty = NotifyRunSummary(id: run, startedAt: Self.now + 5)
        empty.finishedAt = Self.now + 5
        #expect(try await a.finishPart(empty, at: Self.now + 5) == false)
        var partB = NotifyRunSummary(id: run, startedAt: Self.now + 1)
        partB.alertsDelivered = 1
        partB.alertsCarriedOver = 1
        partB.finishedAt = Self.now + 6
        #expect(try await b.finishPart(partB, at: Self.now + 6))
        let summary = try #require(try await a.recentRuns(limit: 1).first)
        #expect(summary.id == run)
        #expect(summary.alertsPlanned == 12 && summary.alertsDelivered == 12 && summary.alertsCarriedOver == 1, "\(summary)")
        #expect(summary.status == .failed && summary.error?.contains("could not record") == true, "a's failed part is not wiped: \(summary.status)")
        let parts = try #require(try await a.workers(ofRuns: [run])[run])
        #expect(parts.map(\.alertsDelivered).sorted() == [1, 11], "a's row keeps its first part")
    }

    static func allBoxes(_ store: PostgresNotifierStore) async throws -> [GeoBox] {
        try await store.boxesToNotify()
    }
}
