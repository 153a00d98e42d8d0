import FrostboxCore
import FrostboxDoubles

/// A notifier store double that passes every call to an in-memory store: a fault-injecting
/// double conforms and implements only the calls it changes.
protocol ForwardingNotifierStore: NotifierStore {
    var base: InMemoryNotifierStore { get }
}

extension ForwardingNotifierStore {
    func lastOutboxID() async throws -> Int64 { try await base.lastOutboxID() }
    func startRun(at now: Int64) async throws -> Int64 { try await base.startRun(at: now) }
    func finishRun(_ summary: NotifyRunSummary) async throws { try await base.finishRun(summary) }
    func boxesToNotify() async throws -> [GeoBox] { try await base.boxesToNotify() }
    func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] { try await base.places(in: boxes) }
    func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] { try await base.alertedEvents(in: boxes, now: now) }
    func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws {
        try await base.recordFetches(succeeded: succeeded, failed: failed, at: now)
    }
    func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] { try await base.enqueue(entries, runID: runID) }
    func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        try await base.pendingOutbox(after: after, through: through, limit: limit, dueBy: dueBy)
    }
    func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws { try await base.record(outcomes) }
    func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool {
        try await base.pruneDevice(token, registeredNoLaterThan: cutoff)
    }
    func recentRuns(limit: Int) async throws -> [NotifyRunSummary] { try await base.recentRuns(limit: limit) }
    func purge(before: Int64) async throws -> Int { try await base.purge(before: before) }
}
