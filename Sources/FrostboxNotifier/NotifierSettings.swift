/// How the notifier schedules, batches and retries.
public struct NotifierSettings: Sendable, Hashable {
    /// Time between the starts of scheduled runs.
    public var interval: Duration = .seconds(3600)
    /// Delay before the first scheduled run after start (it also resends whatever a crash left pending).
    public var firstRunDelay: Duration = .seconds(10)
    /// When a scheduled run finds another run going, it tries again after this long.
    public var busyRetryDelay: Duration = .seconds(60)
    /// With runs shared by several instances (PostgreSQL): how often an idle instance looks
    /// for a run in progress to help with.
    public var joinPollInterval: Duration = .seconds(5)
    /// With shared runs: how long a claim on boxes or outbox entries lasts unless renewed (a
    /// third of it between renewals); what a dead instance held is taken over after it.
    public var leaseSeconds: Int64 = 30
    /// Pushes in flight at once. The default fills the APNs transport's default pool (4
    /// connections × 100 streams); more in flight would only wait for a stream.
    public var concurrency = 400
    /// Sends of one entry within a run (the first send included); temporary failures past it
    /// carry over to the next run.
    public var attemptsPerRun = 3
    /// Wait before the first in-run retry round; doubles each round up to `maximumRetryBackoff`.
    public var retryBackoff: Duration = .seconds(2)
    public var maximumRetryBackoff: Duration = .seconds(60)
    /// Boxes asked for, planned and queued together. Keep it a multiple of the forecast
    /// source's batch size, so a run makes ⌈boxes / batch⌉ requests.
    public var boxesPerChunk = 1000
    /// Outbox entries read at a time for delivery.
    public var outboxPageSize = 1000
    /// Finished outbox entries and alerted events are kept this long after their frost window, seconds.
    public var retentionSeconds: Int64 = 7 * 86_400
    /// Keep each subscribed box's nights and the alerts sent for them, to be checked against
    /// what happened (issue #48; `verification.enabled`).
    public var keepNights = true
    /// Kept nights are purged this long after their window ended, seconds (`verification.retention`).
    public var nightRetentionSeconds: Int64 = 400 * 86_400
    /// How long the end of a run is tried again while the database is unavailable, so that it
    /// is recorded (not left `running`) once the database is back.
    public var endRetryWindow: Duration = .seconds(30)

    public init() {}
}

/// Keeps notify runs of different processes on one database from overlapping (a `frostbox
/// notify --once` next to a running `frostbox serve`). Released by the system when the process
/// dies. (Instances sharing PostgreSQL coordinate through a `NotifyWorkQueue` instead.)
public protocol NotifierRunLock: Sendable {
    /// Takes the lock when no other process holds it; false otherwise. Never blocks.
    func tryLock() -> Bool
    /// Releases a lock taken by `tryLock`.
    func unlock()
}
