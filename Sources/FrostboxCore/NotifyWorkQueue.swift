/// The work of notify runs shared by several instances on one database (PostgreSQL): one run
/// at a time cluster-wide, its boxes claimed in chunks by whichever instances are up, and the
/// outbox entries claimed too. Box claims are leases, held while renewed; entry claims are
/// held by the claimer's heartbeat on the run. Either is taken over by another instance once
/// the holder stops renewing (it died). The single-process SQLite store has
/// no such queue: there the run lock keeps runs apart and one process does all the work.
///
/// `worker` names this instance throughout (host and process id, say).
public protocol NotifyWorkQueue: Sendable {
    /// This instance's name in the runs table.
    var worker: String { get }
    /// How long a claim lasts without renewal, seconds.
    var leaseSeconds: Int64 { get }

    /// Joins the run in progress; when none is, starts one (listing its boxes in notify order,
    /// marking runs whose workers all stopped renewing as interrupted) unless `startNew` is
    /// false, or a run that went through (completed or degraded) started after `startedAfter`
    /// (a scheduled run another instance already made). Nil: nothing to join and nothing started.
    func joinOrStartRun(at now: Int64, startNew: Bool, startedAfter: Int64?) async throws -> NotifyRunJoin?

    /// Claims up to `limit` of the run's boxes that nobody holds, or whose lease expired, in
    /// run order.
    func claimBoxes(runID: Int64, limit: Int, at now: Int64) async throws -> [GeoBox]

    /// Marks claimed boxes done (their alerts are in the outbox).
    func completeBoxes(runID: Int64, _ boxes: [GeoBox], at now: Int64) async throws

    /// Claims up to `limit` pending outbox entries for run `runID`, by id: entries nobody holds
    /// in this run — left by earlier runs, or held by a worker of this run that stopped
    /// renewing its heartbeat or finished its part. Entries `enqueue` stores in a run are
    /// held by their writer already.
    func claimPendingOutbox(runID: Int64, limit: Int, at now: Int64) async throws -> [OutboxEntry]

    /// Claims again those of the entries `ids` that are still pending and due, held by this
    /// worker in run `runID` or by nobody (as `claimPendingOutbox` judges): a part resuming after
    /// a failure sends them, the entries of a delivery that failure cut short. Entries whose
    /// outcome was stored, or that another worker has taken over, are not returned. By id.
    func reclaimPendingOutbox(runID: Int64, ids: [Int64], at now: Int64) async throws -> [OutboxEntry]

    /// Renews this worker's heartbeat (which holds its outbox entries) and its box leases.
    func renewLeases(runID: Int64, at now: Int64) async throws

    /// What is left of the run for others: boxes not done, and pending entries held by
    /// other workers still on the run.
    func remainingWork(runID: Int64, at now: Int64) async throws -> NotifyRunRemainder

    /// Stores this worker's part of the run; when no other worker is still on it, also the
    /// run's summary (the sum of every part) with `status`. True when it closed the run.
    func finishPart(_ part: NotifyRunSummary, at now: Int64) async throws -> Bool

    /// Each run's workers and what each did, by run id.
    func workers(ofRuns runIDs: [Int64]) async throws -> [Int64: [NotifyRunWorker]]
}

/// The answer of `joinOrStartRun`.
public struct NotifyRunJoin: Sendable, Hashable {
    public var runID: Int64
    /// True when this call started the run (false: it joined one in progress).
    public var started: Bool
    /// Boxes the run lists.
    public var boxes: Int

    public init(runID: Int64, started: Bool, boxes: Int) {
        self.runID = runID
        self.started = started
        self.boxes = boxes
    }
}

/// What remains of a run for other workers.
public struct NotifyRunRemainder: Sendable, Hashable {
    /// Boxes not done yet (claimed or not).
    public var boxes: Int
    /// Pending entries held under live claims of other workers.
    public var claimedEntries: Int

    public init(boxes: Int, claimedEntries: Int) {
        self.boxes = boxes
        self.claimedEntries = claimedEntries
    }

    public var isEmpty: Bool { boxes == 0 && claimedEntries == 0 }
}

/// One worker's part in a run, as the runs table shows it.
public struct NotifyRunWorker: Sendable, Hashable, Codable {
    public var worker: String
    public var joinedAt: Int64
    /// Nil while it works (or when it died: then `heartbeatAt` stops).
    public var finishedAt: Int64?
    public var heartbeatAt: Int64
    public var boxes: Int
    public var alertsPlanned: Int
    public var alertsDelivered: Int
    public var alertsCarriedOver: Int

    /// Snake case, as `frostbox runs --json` writes it.
    enum CodingKeys: String, CodingKey {
        case worker, boxes
        case joinedAt = "joined_at"
        case finishedAt = "finished_at"
        case heartbeatAt = "heartbeat_at"
        case alertsPlanned = "alerts_planned"
        case alertsDelivered = "alerts_delivered"
        case alertsCarriedOver = "alerts_carried_over"
    }

    public init(
        worker: String, joinedAt: Int64, finishedAt: Int64?, heartbeatAt: Int64, boxes: Int, alertsPlanned: Int, alertsDelivered: Int, alertsCarriedOver: Int
    ) {
        self.worker = worker
        self.joinedAt = joinedAt
        self.finishedAt = finishedAt
        self.heartbeatAt = heartbeatAt
        self.boxes = boxes
        self.alertsPlanned = alertsPlanned
        self.alertsDelivered = alertsDelivered
        self.alertsCarriedOver = alertsCarriedOver
    }
}
