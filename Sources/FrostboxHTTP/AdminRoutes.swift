import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import Logging

/// The operator API under `/admin`, registered only when an admin token is configured. Every
/// request needs `Authorization: Bearer <token>` (or HTTP Basic with the token as password, so
/// that the status page works from a browser), compared in constant time; anything else is a
/// 401 JSON error.
public struct AdminRoutes: Sendable {
    /// What a manual notify request led to.
    public enum NotifyTrigger: Sendable, Equatable {
        /// A run was started (its id when the notifier assigns one up front).
        case started(runID: Int64?)
        /// A run is already going; nothing new was started.
        case alreadyRunning
        /// No notifier is configured in this process.
        case unavailable
    }

    /// What the admin API can see and do; the composition root wires each part.
    public struct Operations: Sendable {
        /// Counts and recent runs for `GET /admin/stats`.
        public var stats: @Sendable () async throws -> AdminStats
        /// Starts a notify run now, unless one is running.
        public var notify: @Sendable () async throws -> NotifyTrigger
        /// Where `POST /admin/push-test` sends; nil when push is not configured.
        public var pushSender: (any PushSender)?
        /// Looks for a newer places generation now (`POST /admin/places/reload`).
        public var reloadPlaces: @Sendable () async -> PlacesReload
        /// Devices waiting to be proven real (`/admin/devices/pending`); nil when devices
        /// need no proving.
        public var pendingDevices: (any DeviceVerificationStore)?
        /// The checked nights' scores since a date (`GET /admin/verification`); nil when no
        /// nights are kept (`verification.enabled: false`).
        public var verification: (@Sendable (LocalDate?) async throws -> VerificationOverview)?

        public init(
            stats: @escaping @Sendable () async throws -> AdminStats,
            notify: @escaping @Sendable () async throws -> NotifyTrigger = { .unavailable },
            pushSender: (any PushSender)? = nil,
            reloadPlaces: @escaping @Sendable () async -> PlacesReload = { PlacesReload(result: "unchanged", generation: nil, switchedAt: nil) },
            pendingDevices: (any DeviceVerificationStore)? = nil,
            verification: (@Sendable (LocalDate?) async throws -> VerificationOverview)? = nil
        ) {
            self.verification = verification
            self.stats = stats
            self.notify = notify
            self.pushSender = pushSender
            self.reloadPlaces = reloadPlaces
            self.pendingDevices = pendingDevices
        }
    }

    let token: AdminToken
    let operations: Operations

    public init(token: AdminToken, operations: Operations) {
        self.token = token
        self.operations = operations
    }

    public func add(to routes: RouteBuilder) {
        addPendingDevices(to: routes)
        addVerification(to: routes)
        routes.on(.get, "/admin/stats") { request, context in
            try authorize(request, context)
            return JSONResponse(.ok, try await operations.stats())
        }

        routes.on(.post, "/admin/notify") { request, context in
            try authorize(request, context, changesState: true)
            switch try await operations.notify() {
            case .started(let runID):
                context.logger.notice("notify run started by admin", metadata: ["run": "\(runID.map(String.init) ?? "-")"])
                return JSONResponse(.accepted, NotifyStarted(status: "started", runID: runID))
            case .alreadyRunning:
                throw APIError(.conflict, code: "run_in_progress", "a notify run is already in progress")
            case .unavailable:
                throw APIError(.serviceUnavailable, code: "notifier_unavailable", "no notifier is configured in this process")
            }
        }

        routes.on(.post, "/admin/places/reload") { request, context in
            try authorize(request, context, changesState: true)
            let reload = await operations.reloadPlaces()
            context.logger.notice(
                "places reload requested by admin", metadata: ["result": "\(reload.result)", "generation": "\(reload.generation ?? "-")"])
            return JSONResponse(.ok, reload)
        }

        routes.on(.post, "/admin/push-test") { request, context in
            try authorize(request, context, changesState: true)
            let body = try await JSONBody.decode(PushTestBody.self, from: request, context: context)
            let notification = try DeviceRoutes.validated { () throws(ValidationError) in try body.notification() }
            guard let sender = operations.pushSender else {
                throw APIError(.serviceUnavailable, code: "push_unavailable", "no APNs app is configured in this process")
            }
            let outcome = await sender.send(notification)
            context.logger.notice(
                "push test sent", metadata: ["token": "\(notification.token.redacted)", "outcome": "\(outcome.failureClass)"])
            return JSONResponse(.ok, PushTestResult(notification: notification, outcome: outcome))
        }
    }

    /// Throws a 401 unless the request carries the admin token (see `AdminAuthorization`).
    /// Reads take the token as Bearer or Basic; routes that change state only as Bearer.
    func authorize(_ request: Request, _ context: FrostboxRequestContext, changesState: Bool = false) throws {
        try AdminAuthorization(token: token).check(request, context, bearerOnly: changesState)
    }
}

/// The admin bearer secret. Its description never shows the value.
public struct AdminToken: Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    /// Shortest token accepted, so a guessable one cannot be configured by mistake.
    public static let minimumLength = 16

    /// Nil when `value` is shorter than `minimumLength`.
    public init?(_ value: String) {
        guard value.utf8.count >= Self.minimumLength else { return nil }
        bytes = Array(value.utf8)
    }

    /// Compares in time that depends only on the configured token's length, never on where
    /// the first differing byte is.
    public func matches(_ presented: String) -> Bool {
        let other = Array(presented.utf8)
        var difference = UInt8(truncatingIfNeeded: other.count ^ bytes.count)
        if other.count != bytes.count { difference |= 1 }
        for index in bytes.indices {
            let theirs = index < other.count ? other[index] : 0
            difference |= bytes[index] ^ theirs
        }
        return difference == 0
    }

    public var description: String { "AdminToken(\(bytes.count) bytes)" }
}

/// The body of `GET /admin/stats`.
public struct AdminStats: Sendable, Encodable, Equatable {
    /// Registered devices.
    public var devices: Int
    /// Registered devices by platform (`ios`, `android`).
    public var devicesByPlatform: [String: Int]
    /// Subscriptions over all devices.
    public var subscriptions: Int
    /// Distinct forecast boxes the subscriptions fall in.
    public var boxes: Int
    /// Places in the search index.
    public var places: Int
    /// The places generation in use (its file name); nil for a plain places file.
    public var placesGeneration: String?
    /// When the server switched to it (RFC 3339 UTC); nil for the one it started with.
    public var placesSwitchedAt: String?
    /// Alerts waiting in the outbox.
    public var outboxPending: Int
    /// Boxes with a cached forecast (the forecast cache's size).
    public var forecastsCached: Int
    /// The latest notify runs, newest first.
    public var recentRuns: [AdminRunSummary]
    /// Of `outboxPending`, alerts held until their device's quiet hours end or their delivery window opens.
    public var outboxHeld: Int = 0
    /// Devices waiting to be proven real; nil (absent) when devices need no proving.
    public var devicesPending: Int?
    /// Subscribed boxes in which no device is verified yet (not forecast); nil as above.
    public var boxesAwaitingVerification: Int?

    public init(
        devices: Int, devicesByPlatform: [String: Int] = [:], subscriptions: Int, boxes: Int, places: Int, placesGeneration: String? = nil,
        placesSwitchedAt: Int64? = nil, outboxPending: Int = 0, forecastsCached: Int = 0, recentRuns: [AdminRunSummary] = []
    ) {
        self.placesGeneration = placesGeneration
        self.placesSwitchedAt = placesSwitchedAt.map(Timestamp.iso8601)
        self.devices = devices
        self.devicesByPlatform = devicesByPlatform
        self.subscriptions = subscriptions
        self.boxes = boxes
        self.places = places
        self.outboxPending = outboxPending
        self.forecastsCached = forecastsCached
        self.recentRuns = recentRuns
    }

    enum CodingKeys: String, CodingKey {
        case devices, subscriptions, boxes, places
        case devicesByPlatform = "devices_by_platform"
        case outboxPending = "outbox_pending"
        case forecastsCached = "forecasts_cached"
        case recentRuns = "recent_runs"
        case placesGeneration = "places_generation"
        case placesSwitchedAt = "places_switched_at"
        case outboxHeld = "outbox_held"
        case devicesPending = "devices_pending"
        case boxesAwaitingVerification = "boxes_awaiting_verification"
    }
}

/// The body of `POST /admin/places/reload`.
public struct PlacesReload: Sendable, Encodable, Equatable {
    /// `switched` (to a newer generation), `unchanged`, or `refused` (the newest candidate
    /// failed its checks; the server keeps the one it has).
    public var result: String
    /// The generation in use after the check (nil: a plain places file).
    public var generation: String?
    /// When the server switched to it (RFC 3339 UTC); nil for the one it started with.
    public var switchedAt: String?
    /// The refused generation and why.
    public var refused: String?
    public var reason: String?

    public init(result: String, generation: String?, switchedAt: Int64?, refused: String? = nil, reason: String? = nil) {
        self.result = result
        self.generation = generation
        self.switchedAt = switchedAt.map(Timestamp.iso8601)
        self.refused = refused
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case result, generation, refused, reason
        case switchedAt = "switched_at"
    }
}

/// One notify run as the admin API shows it.
public struct AdminRunSummary: Sendable, Encodable, Equatable {
    public var id: Int64
    /// `running`, `completed`, `degraded` (some boxes or pushes failed), `failed`, `interrupted`.
    public var status: String
    /// UTC epoch seconds.
    public var startedAt: Int64
    public var finishedAt: Int64?
    public var boxes: Int
    /// Boxes whose forecast failed.
    public var boxesFailed: Int
    public var planned: Int
    public var delivered: Int
    public var failed: Int
    /// Boxes served from the cache because no model they depend on had a newer run.
    public var freshByRun: Int
    /// Forecast requests made.
    public var forecastRequests: Int
    /// With runs shared by several instances (PostgreSQL): who worked on the run and what
    /// each did; nil on a single instance.
    public var workers: [NotifyRunWorker]?

    public init(
        id: Int64, status: String, startedAt: Int64, finishedAt: Int64?, boxes: Int, boxesFailed: Int = 0, planned: Int, delivered: Int, failed: Int,
        freshByRun: Int = 0, forecastRequests: Int = 0, workers: [NotifyRunWorker]? = nil
    ) {
        self.id = id
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.boxes = boxes
        self.boxesFailed = boxesFailed
        self.planned = planned
        self.delivered = delivered
        self.failed = failed
        self.freshByRun = freshByRun
        self.forecastRequests = forecastRequests
        self.workers = workers
    }

    enum CodingKeys: String, CodingKey {
        case id, status, boxes, planned, delivered, failed, workers
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case boxesFailed = "boxes_failed"
        case freshByRun = "fresh_by_run"
        case forecastRequests = "forecast_requests"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(Timestamp.iso8601(startedAt), forKey: .startedAt)
        try container.encode(finishedAt.map(Timestamp.iso8601), forKey: .finishedAt)
        try container.encode(boxes, forKey: .boxes)
        try container.encode(boxesFailed, forKey: .boxesFailed)
        try container.encode(freshByRun, forKey: .freshByRun)
        try container.encode(forecastRequests, forKey: .forecastRequests)
        try container.encode(planned, forKey: .planned)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(failed, forKey: .failed)
        if let workers { try container.encode(workers.map(AdminRunWorker.init), forKey: .workers) }
    }
}

/// One worker of a shared run as the admin API shows it.
struct AdminRunWorker: Encodable {
    let worker: String
    let joinedAt: String
    let finishedAt: String?
    let lastHeartbeatAt: String
    let boxes, planned, delivered, carriedOver: Int

    init(_ w: NotifyRunWorker) {
        worker = w.worker
        joinedAt = Timestamp.iso8601(w.joinedAt)
        finishedAt = w.finishedAt.map(Timestamp.iso8601)
        lastHeartbeatAt = Timestamp.iso8601(w.heartbeatAt)
        boxes = w.boxes
        planned = w.alertsPlanned
        delivered = w.alertsDelivered
        carriedOver = w.alertsCarriedOver
    }

    enum CodingKeys: String, CodingKey {
        case worker, boxes, planned, delivered
        case joinedAt = "joined_at"
        case finishedAt = "finished_at"
        case lastHeartbeatAt = "last_heartbeat_at"
        case carriedOver = "carried_over"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(worker, forKey: .worker)
        try container.encode(joinedAt, forKey: .joinedAt)
        try container.encode(finishedAt, forKey: .finishedAt)
        try container.encode(lastHeartbeatAt, forKey: .lastHeartbeatAt)
        try container.encode(boxes, forKey: .boxes)
        try container.encode(planned, forKey: .planned)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(carriedOver, forKey: .carriedOver)
    }
}

/// `202` body of `POST /admin/notify`.
struct NotifyStarted: Encodable {
    let status: String
    let runID: Int64?

    enum CodingKeys: String, CodingKey {
        case status
        case runID = "run_id"
    }
}
