/// A planned alert with its push decided, as kept in the durable outbox until delivered.
public struct OutboxEntry: Sendable, Hashable {
    /// Store-assigned id; 0 before the entry is stored.
    public var id: Int64
    public var event: FrostEvent
    public var kind: AlertKind
    /// The exact push to send, message id and collapse id included; a resend is the same
    /// request. Planned alerts carry the message id derived from device and event.
    public var notification: PushNotification
    /// Sends tried so far, over all runs.
    public var attempts: Int
    /// When it was planned, UTC epoch seconds.
    public var createdAt: Int64
    /// Held through the device's quiet hours or outside its place's delivery window: not sent
    /// before this (UTC epoch seconds); nil for an entry that was never held.
    public var notBefore: Int64?
    /// When its frost begins (UTC epoch seconds): a held entry released after it is dropped
    /// (`DeliveryTiming.heldAlertStillHelps`). Nil for all-clears.
    public var frostStartsAt: Int64?
    /// The store's key of the device, when planning had it (see `SubscribedPlace.deviceKey`);
    /// nil: the store finds the device by token. Not part of what the entry is.
    public var deviceKey: Int64?

    public init(
        id: Int64 = 0, event: FrostEvent, kind: AlertKind, notification: PushNotification, attempts: Int = 0, createdAt: Int64,
        notBefore: Int64? = nil, frostStartsAt: Int64? = nil
    ) {
        self.id = id
        self.event = event
        self.kind = kind
        self.notification = notification
        self.attempts = attempts
        self.createdAt = createdAt
        self.notBefore = notBefore
        self.frostStartsAt = frostStartsAt
    }

    /// Whether it waits, at `now`, for quiet hours to end or a delivery window to open.
    public func isHeld(at now: Int64) -> Bool { notBefore.map { $0 > now } ?? false }

    /// The device the entry is for.
    public var token: DeviceToken { notification.token }

    /// Until when the entry marks its event alerted for its device (one alert per event):
    /// the push's expiration, or a day after planning. Every store keeps this one rule.
    public var alertedUntil: Int64 { notification.expiration ?? (createdAt + 86_400) }

    /// Equal when they are the same entry; `deviceKey` is a store's shortcut, not part of it.
    public static func == (a: OutboxEntry, b: OutboxEntry) -> Bool {
        a.id == b.id && a.event == b.event && a.kind == b.kind && a.notification == b.notification && a.attempts == b.attempts
            && a.createdAt == b.createdAt && a.notBefore == b.notBefore && a.frostStartsAt == b.frostStartsAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(event)
        hasher.combine(kind)
        hasher.combine(notification)
        hasher.combine(attempts)
        hasher.combine(createdAt)
        hasher.combine(notBefore)
        hasher.combine(frostStartsAt)
    }
}

/// Why an outbox entry was not delivered, as counted in run summaries.
public enum DeliveryFailureClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// 429, 5xx, connection errors: retried within the run, then carried over to the next.
    case temporary
    /// Refused for good (other 4xx); the reason is kept.
    case permanent
    /// The token is dead (400 BadDeviceToken, 410 Unregistered).
    case invalidToken = "invalid-token"
    /// The provider credentials were refused; entries stay pending until sending works again.
    case auth
    /// The frost window ended before the entry could be delivered.
    case expired

    /// The class of a push outcome; nil for a delivery.
    public init?(_ outcome: PushOutcome) {
        switch outcome {
        case .delivered: return nil
        case .invalidToken: self = .invalidToken
        case .permanentFailure: self = .permanent
        case .authFailure: self = .auth
        case .temporaryFailure: self = .temporary
        }
    }

    /// Whether an entry failing this way stays pending for a later attempt.
    public var keepsEntryPending: Bool { self == .temporary || self == .auth }
}

/// What became of one send of an outbox entry.
public enum OutboxOutcome: Sendable, Hashable {
    /// Accepted by the gateway at `at` (UTC epoch seconds) with the message id it answered.
    case delivered(at: Int64, messageID: String)
    /// Not delivered. Classes that `keepsEntryPending` leave the entry pending; others end it.
    case failed(DeliveryFailureClass, reason: String, at: Int64)
}

/// Where the notifier keeps its state: which boxes to ask for, who subscribes where, what was
/// alerted, the outbox, fetch state of boxes and the run history. Every write is durable
/// when the method returns.
public protocol NotifierStore: Sendable {
    /// The distinct boxes with at least one subscription, in the order a run asks for them:
    /// boxes whose last fetch failed or was left out first (failing longest first), then boxes
    /// never fetched, then the rest by oldest successful fetch.
    func boxesToNotify() async throws -> [GeoBox]

    /// The subscriptions in `boxes`, with their devices' facts, by box.
    func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]]

    /// Events alerted (or queued) in `boxes` whose frost window has not ended by `now`, by box.
    func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]]

    /// Records the outcome of asking for forecasts: `failed` maps a box to the reason.
    func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws

    /// In one transaction, puts `entries` in the outbox and marks their events alerted for
    /// their devices. An entry whose (device, event) is already there is skipped. An
    /// escalation or all-clear ends the device's entries of the same box and night still held
    /// (for quiet hours or a delivery window; failed, `expired`, with the reason `OutboxEntry.replacedWhileHeld`);
    /// an all-clear that so cancelled a held alert is itself stored as ended (the person gets
    /// neither, `OutboxEntry.cancelledWhileHeld`). Returns the entries stored and still
    /// pending, with their ids.
    func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry]

    /// Pending outbox entries with `after < id` (and `id <= through` when given) that are due
    /// at `dueBy` (not held past it: `notBefore` nil or ≤ `dueBy`), by id, at most `limit`.
    func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry]

    /// The highest outbox id so far (0 when the outbox was never used).
    func lastOutboxID() async throws -> Int64

    /// Records sends, in one durable write: for each still pending entry `id`, counts the
    /// attempt and stores the outcome. Entries no longer pending (delivered, failed, deleted)
    /// are left as they are.
    func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws

    /// Deletes the device and everything stored about it (subscriptions, outbox, alerted
    /// events), unless it registered after `cutoff` (UTC epoch seconds). True when deleted.
    func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool

    /// Opens a run in the runs table; returns its id. Runs still marked running (their process
    /// died) are marked interrupted first.
    func startRun(at now: Int64) async throws -> Int64

    /// Stores a run's final summary under `summary.id`.
    func finishRun(_ summary: NotifyRunSummary) async throws

    /// The latest runs, newest first.
    func recentRuns(limit: Int) async throws -> [NotifyRunSummary]

    /// Deletes finished (delivered or failed) outbox entries whose push expired before
    /// `before`, and with them their alerted marks (an entry without an expiration is kept,
    /// and keeps its event from being queued again); fetch state of boxes nobody subscribes
    /// to any more; runs beyond the kept number. Returns how many outbox entries, fetch states
    /// and runs it deleted.
    @discardableResult
    func purge(before: Int64) async throws -> Int
}

extension NotifierStore {
    /// Every pending outbox entry with `after < id` (and `id <= through`), held or not.
    public func pendingOutbox(after: Int64, through: Int64?, limit: Int) async throws -> [OutboxEntry] {
        try await pendingOutbox(after: after, through: through, limit: limit, dueBy: .max)
    }

    /// Records one send of entry `id` (see `record(_:)`).
    public func record(_ outcome: OutboxOutcome, for id: Int64) async throws {
        try await record([(id: id, outcome: outcome)])
    }
}

extension OutboxEntry {
    /// The failure reason of a held entry dropped at release because its frost had begun.
    public static let heldExpired = "held for quiet hours or a delivery window: the frost had begun when they let it go"
    /// The failure reason of a held entry an escalation or all-clear replaced.
    public static let replacedWhileHeld = "held for quiet hours or a delivery window: replaced by a later alert of the same night"
    /// The failure reason of an all-clear whose alert was still held (the person gets neither).
    public static let cancelledWhileHeld = "all-clear for an alert still held for quiet hours or a delivery window: neither is sent"
}
