import FrostboxCore
import Synchronization

/// A `NotifierStore` in memory, with the same rules as the SQLite one: one outbox entry per
/// (device, event), enqueue and alert-marking together, pruning by registration time, device
/// deletion taking everything of the device with it. `snapshot()` copies the whole state, so a
/// test can "kill" a notifier and restart another on what was durable at that moment.
public final class InMemoryNotifierStore: NotifierStore {
    /// One stored outbox row.
    public struct Row: Sendable, Hashable {
        public var entry: OutboxEntry
        public var status: Status
        public var deliveredAt: Int64?
        public var deliveredMessageID: String?
        public var failure: DeliveryFailureClass?
        public var failureReason: String?
        public var runID: Int64?

        /// Where a row stands.
        public enum Status: String, Sendable, Hashable {
            case pending, delivered, failed
        }
    }

    /// Fetch bookkeeping of one box.
    public struct FetchState: Sendable, Hashable {
        public var lastAttemptAt: Int64
        public var lastSuccessAt: Int64?
        public var failingSince: Int64?
        public var failure: String?
    }

    struct DeviceFacts: Sendable {
        var registeredAt: Int64
        var platform: DevicePlatform
        var app: String?
        var environment: PushEnvironment?
        var quietHours: QuietHours?
        var hardFreezeBreaksQuietHours = false
        /// When proven real (nil: pending); seeded devices are verified unless told otherwise.
        var verifiedAt: Int64? = 0
        var createdAt: Int64 = 0
    }

    struct State: Sendable {
        var devices: [DeviceToken: DeviceFacts] = [:]
        var places: [(box: GeoBox, place: SubscribedPlace)] = []
        var nextSubscriptionID: Int64 = 1
        var alerted: [AlertedEvent: Int64] = [:]
        var outbox: [Row] = []
        var nextOutboxID: Int64 = 1
        var fetches: [GeoBox: FetchState] = [:]
        var runs: [NotifyRunSummary] = []
        var nextRunID: Int64 = 1
        /// Kept nights (issue #48) by box key and night.
        var nights: [NightKey: NightRecord] = [:]
        /// Their checks against what happened, once chosen or skipped.
        var nightChecks: [NightKey: NightCheckRow] = [:]
        /// The check's lease: who holds it until when.
        var nightCheckLease: (owner: String, until: Int64)?
    }

    struct NightKey: Sendable, Hashable {
        var box: Int64
        var night: Int
    }

    let state: Mutex<State>
    /// How many runs `purge` keeps.
    public let keptRuns: Int
    /// As the SQL stores': boxes without a verified device are not asked for and pending
    /// devices get no alerts. False: every device counts.
    public let verifiedDevicesOnly: Bool

    public init(keptRuns: Int = 10_000, verifiedDevicesOnly: Bool = false) {
        state = Mutex(State())
        self.keptRuns = keptRuns
        self.verifiedDevicesOnly = verifiedDevicesOnly
    }

    private init(_ copy: State, keptRuns: Int, verifiedDevicesOnly: Bool) {
        state = Mutex(copy)
        self.keptRuns = keptRuns
        self.verifiedDevicesOnly = verifiedDevicesOnly
    }

    /// An independent copy of everything stored now.
    public func snapshot() -> InMemoryNotifierStore {
        InMemoryNotifierStore(state.withLock { $0 }, keptRuns: keptRuns, verifiedDevicesOnly: verifiedDevicesOnly)
    }

    // MARK: Seeding and inspection (tests)

    /// Registers (or re-registers) a device at `registeredAt`; `verified` false leaves it
    /// pending (`DeviceVerification`).
    public func register(
        _ token: DeviceToken, at registeredAt: Int64, platform: DevicePlatform? = nil, app: String? = nil, environment: PushEnvironment? = nil,
        quietHours: QuietHours? = nil, hardFreezeBreaksQuietHours: Bool = false, verified: Bool = true
    ) {
        state.withLock {
            $0.devices[token] = DeviceFacts(
                registeredAt: registeredAt, platform: platform ?? token.formPlatform, app: app, environment: environment,
                quietHours: quietHours, hardFreezeBreaksQuietHours: hardFreezeBreaksQuietHours, verifiedAt: verified ? registeredAt : nil,
                createdAt: registeredAt)
        }
    }

    /// Adds a subscription (registering its device at 0 when unknown); returns its id.
    @discardableResult
    public func subscribe(_ token: DeviceToken, box: GeoBox, name: String, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default) -> Int64 {
        state.withLock { state in
            if state.devices[token] == nil { state.devices[token] = DeviceFacts(registeredAt: 0, platform: token.formPlatform) }
            let id = state.nextSubscriptionID
            state.nextSubscriptionID += 1
            state.places.append((box, SubscribedPlace(subscriptionID: id, token: token, name: name, unit: unit, settings: settings)))
            return id
        }
    }

    /// Whether the device is still stored.
    public func hasDevice(_ token: DeviceToken) -> Bool { state.withLock { $0.devices[token] != nil } }

    /// Every outbox row, by id.
    public var outbox: [Row] { state.withLock { $0.outbox } }

    /// Every alerted event.
    public var alerted: Set<AlertedEvent> { state.withLock { Set($0.alerted.keys) } }

    /// Fetch state by box.
    public var fetchStates: [GeoBox: FetchState] { state.withLock { $0.fetches } }

    /// Every run, oldest first.
    public var runs: [NotifyRunSummary] { state.withLock { $0.runs } }
    /// The boxes at least one subscription names.
    public var subscribedBoxes: Set<GeoBox> { state.withLock { Set($0.places.map(\.box)) } }

    // MARK: NotifierStore

    public func boxesToNotify() async throws -> [GeoBox] {
        let verifiedOnly = verifiedDevicesOnly
        return state.withLock { state in
            let boxes = Set(state.places.filter { !verifiedOnly || state.devices[$0.place.token]?.verifiedAt != nil }.map(\.box))
            return boxes.sorted { a, b in
                Self.order(state.fetches[a], a) < Self.order(state.fetches[b], b)
            }
        }
    }

    /// Failing first (longest failing first), then never fetched, then oldest success; box key last.
    static func order(_ fetch: FetchState?, _ box: GeoBox) -> (Int64, Int64, Int64) {
        guard let fetch else { return (1, 0, box.key) }
        if let since = fetch.failingSince { return (0, since, box.key) }
        return (2, fetch.lastSuccessAt ?? 0, box.key)
    }

    public func places(in boxes: [GeoBox]) async throws -> [GeoBox: [SubscribedPlace]] {
        let wanted = Set(boxes)
        let verifiedOnly = verifiedDevicesOnly
        return state.withLock { state in
            var result: [GeoBox: [SubscribedPlace]] = [:]
            for (box, place) in state.places
            where wanted.contains(box) && (!verifiedOnly || state.devices[place.token]?.verifiedAt != nil) {
                var place = place
                let device = state.devices[place.token]
                place.platform = device?.platform ?? place.token.formPlatform
                place.app = device?.app
                place.environment = device?.environment
                place.quietHours = device?.quietHours
                place.hardFreezeBreaksQuietHours = device?.hardFreezeBreaksQuietHours ?? false
                result[box, default: []].append(place)
            }
            return result
        }
    }

    public func alertedEvents(in boxes: [GeoBox], now: Int64) async throws -> [GeoBox: [AlertedEvent]] {
        let wanted = Set(boxes)
        return state.withLock { state in
            var result: [GeoBox: [AlertedEvent]] = [:]
            for (event, expiresAt) in state.alerted where wanted.contains(event.event.box) && expiresAt > now {
                var event = event
                // As the SQL: held for quiet hours and never attempted.
                event.neverSent = state.outbox.contains {
                    $0.entry.token == event.token && $0.entry.event == event.event && $0.entry.notBefore != nil && $0.entry.attempts == 0
                }
                result[event.event.box, default: []].append(event)
            }
            return result
        }
    }

    public func recordFetches(succeeded: [GeoBox], failed: [GeoBox: String], at now: Int64) async throws {
        state.withLock { state in
            for box in succeeded {
                state.fetches[box] = FetchState(lastAttemptAt: now, lastSuccessAt: now, failingSince: nil, failure: nil)
            }
            for (box, reason) in failed {
                var fetch = state.fetches[box] ?? FetchState(lastAttemptAt: now)
                fetch.lastAttemptAt = now
                fetch.failingSince = fetch.failingSince ?? now
                fetch.failure = reason
                state.fetches[box] = fetch
            }
        }
    }

    public func enqueue(_ entries: [OutboxEntry], runID: Int64?) async throws -> [OutboxEntry] {
        state.withLock { state in
            var stored: [OutboxEntry] = []
            for var entry in entries {
                guard state.devices[entry.token] != nil else { continue }
                let duplicate = state.outbox.contains { $0.entry.token == entry.token && $0.entry.event == entry.event }
                if duplicate { continue }
                entry.id = state.nextOutboxID
                state.nextOutboxID += 1
                var row = Row(entry: entry, status: .pending, runID: runID)
                if entry.kind != .frost {
                    var replaced = false
                    for index in state.outbox.indices {
                        let other = state.outbox[index]
                        guard other.status == .pending, other.entry.notBefore != nil, other.entry.token == entry.token,
                            other.entry.event.box == entry.event.box, other.entry.event.night == entry.event.night
                        else { continue }
                        state.outbox[index].status = .failed
                        state.outbox[index].failure = .expired
                        state.outbox[index].failureReason = OutboxEntry.replacedWhileHeld
                        replaced = true
                    }
                    if replaced, entry.kind == .allClear {
                        row.status = .failed
                        row.failure = .expired
                        row.failureReason = OutboxEntry.cancelledWhileHeld
                    }
                }
                state.outbox.append(row)
                let alerted = AlertedEvent(token: entry.token, event: entry.event, kind: entry.kind)
                state.alerted[alerted] = entry.alertedUntil
                if row.status == .pending { stored.append(entry) }
            }
            return stored
        }
    }

    public func pendingOutbox(after: Int64, through: Int64?, limit: Int, dueBy: Int64) async throws -> [OutboxEntry] {
        state.withLock { state in
            Array(
                state.outbox.lazy
                    .filter {
                        $0.status == .pending && $0.entry.id > after && $0.entry.id <= (through ?? .max) && !$0.entry.isHeld(at: dueBy)
                    }
                    .map(\.entry)
                    .prefix(limit))
        }
    }

    public func lastOutboxID() async throws -> Int64 { state.withLock { $0.nextOutboxID - 1 } }

    public func record(_ outcomes: [(id: Int64, outcome: OutboxOutcome)]) async throws {
        state.withLock { state in
            for (id, outcome) in outcomes {
                // As the SQL: only a pending entry takes an outcome; a finished one stays as it is.
                guard let index = state.outbox.firstIndex(where: { $0.entry.id == id }), state.outbox[index].status == .pending
                else { continue }
                var row = state.outbox[index]
                row.entry.attempts += 1
                switch outcome {
                case .delivered(let at, let messageID):
                    row.status = .delivered
                    row.deliveredAt = at
                    row.deliveredMessageID = messageID
                    row.failure = nil
                    row.failureReason = nil
                case .failed(let failure, let reason, _):
                    row.status = failure.keepsEntryPending ? .pending : .failed
                    row.failure = failure
                    row.failureReason = String(reason.prefix(500))
                }
                state.outbox[index] = row
            }
        }
    }

    public func pruneDevice(_ token: DeviceToken, registeredNoLaterThan cutoff: Int64) async throws -> Bool {
        state.withLock { state in
            guard let device = state.devices[token], device.registeredAt <= cutoff else { return false }
            state.devices[token] = nil
            state.places.removeAll { $0.place.token == token }
            state.outbox.removeAll { $0.entry.token == token }
            state.alerted = state.alerted.filter { $0.key.token != token }
            return true
        }
    }

    public func startRun(at now: Int64) async throws -> Int64 {
        state.withLock { state in
            let id = state.nextRunID
            state.nextRunID += 1
            for index in state.runs.indices where state.runs[index].status == .running {
                state.runs[index].status = .interrupted
                state.runs[index].finishedAt = state.runs[index].finishedAt ?? now
            }
            state.runs.append(NotifyRunSummary(id: id, startedAt: now))
            return id
        }
    }

    public func finishRun(_ summary: NotifyRunSummary) async throws {
        state.withLock { state in
            if let index = state.runs.firstIndex(where: { $0.id == summary.id }) { state.runs[index] = summary }
        }
    }

    public func recentRuns(limit: Int) async throws -> [NotifyRunSummary] {
        state.withLock { Array($0.runs.reversed().prefix(limit)) }
    }

    @discardableResult
    public func purge(before: Int64) async throws -> Int {
        let keptRuns = self.keptRuns
        return state.withLock { state in
            // As the SQL: an entry without an expiration is never purged.
            let gone = state.outbox.filter { row in
                guard row.status != .pending, let expiration = row.entry.notification.expiration else { return false }
                return expiration < before
            }
            let goneIDs = Set(gone.map(\.entry.id))
            state.outbox.removeAll { goneIDs.contains($0.entry.id) }
            // The entry's alerted mark goes with it (enqueue keyed it by the same device, event and kind).
            for row in gone {
                state.alerted[AlertedEvent(token: row.entry.token, event: row.entry.event, kind: row.entry.kind)] = nil
            }
            let fetches = state.fetches.count
            let boxes = Set(state.places.map(\.box))
            state.fetches = state.fetches.filter { boxes.contains($0.key) }
            let runs = state.runs.count
            if let last = state.runs.last?.id {
                state.runs.removeAll { $0.id <= last - Int64(keptRuns) && $0.status != .running }
            }
            return gone.count + (fetches - state.fetches.count) + (runs - state.runs.count)
        }
    }
}

extension InMemoryNotifierStore.FetchState {
    init(lastAttemptAt: Int64) {
        self.init(lastAttemptAt: lastAttemptAt, lastSuccessAt: nil, failingSince: nil, failure: nil)
    }
}
