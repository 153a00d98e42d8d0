/// What one notify run did, as logged and kept in the runs table.
public struct NotifyRunSummary: Sendable, Hashable, Codable {
    /// Which way a run ended.
    public enum Status: String, Sendable, Hashable, Codable {
        case running
        /// Everything the run set out to do worked.
        case completed
        /// The run went through, but some boxes got no forecast or some pushes failed
        /// (temporary, permanent or authentication failures); the rest was done.
        case degraded
        /// Nothing could be done: the run stopped on an error, every box asked for failed, or
        /// every push it tried failed.
        case failed
        /// The process stopped (crash, kill) while the run was going.
        case interrupted
    }

    /// Id in the runs table (0 for a dry run, which stores nothing).
    public var id: Int64
    public var startedAt: Int64
    public var finishedAt: Int64?
    public var status: Status
    public var dryRun: Bool
    /// Distinct boxes with subscriptions.
    public var boxes: Int
    public var forecastsCached: Int
    /// Of the cached forecasts, those kept because no model their box depends on had a newer run.
    public var forecastsFreshByRun: Int
    public var forecastsFetched: Int
    /// Boxes whose fetch failed (left-out boxes not included).
    public var boxesFailed: Int
    /// Boxes not asked for because the quota budget was spent.
    public var boxesLeftOut: Int
    /// Forecast HTTP requests started (ensemble requests included).
    public var forecastRequests: Int
    /// Boxes whose ensemble came from the cache / was fetched in this run (issue #47).
    public var ensemblesCached: Int = 0
    public var ensemblesFetched: Int = 0
    /// Boxes with subscriptions alerted by probability that had no ensemble this run (the
    /// budget could not cover it, or its fetch failed): judged by the deterministic verdict.
    public var probabilityFallback: Int = 0
    /// Of `weightUsed`, what ensembles cost (not stored: the run's own reserve for the
    /// forecasts still to come is reckoned from the rest).
    public var ensembleWeightUsed = 0.0
    /// Quota weight used.
    public var weightUsed: Double
    /// Verdicts computed (one per box and distinct rule).
    public var verdicts: Int
    /// Alerts newly planned and queued in this run.
    public var alertsPlanned: Int
    /// Entries from earlier runs that were still pending at the start of this one.
    public var alertsCarriedOver: Int
    public var alertsDelivered: Int
    /// Sends that failed, by class (an entry retried within the run counts once per final outcome).
    public var failed: [DeliveryFailureClass: Int]
    public var tokensPruned: Int
    /// Delivered and failed alerts by the device's platform (the failures of every class,
    /// as in `failed`).
    public var byPlatform: PlatformDeliveries
    /// Time spent resending entries left pending by earlier runs, milliseconds.
    public var resendMilliseconds: Int
    /// Time spent waiting for forecasts, milliseconds.
    public var forecastMilliseconds: Int
    /// Time spent computing verdicts and planning alerts (pure work), milliseconds.
    public var planningMilliseconds: Int
    /// Time spent reading subscriptions and writing the outbox, milliseconds.
    public var storeMilliseconds: Int
    /// Time spent delivering this run's alerts (retries included), milliseconds.
    public var deliveryMilliseconds: Int
    public var durationMilliseconds: Int
    /// Why the run failed, when it did.
    public var error: String?
    /// The first box's forecast failure (not stored; `failureReason` names it).
    public var firstBoxFailure: String?
    /// The first push failure's reason (not stored; `failureReason` names it).
    public var firstPushFailure: String?
    /// Alerts planned inside their device's quiet hours or outside their delivery window and held
    /// in the outbox (of `alertsPlanned`).
    public var alertsHeld: Int = 0
    /// Held alerts sent once the quiet hours ended or the delivery window opened.
    public var alertsReleased: Int = 0
    /// Held alerts dropped when released because their frost had begun (also
    /// counted in `failed[.expired]`).
    public var alertsHeldExpired: Int = 0
    /// Devices proven real by this run's verification round (`DeviceVerification`).
    public var devicesVerified: Int = 0
    /// Devices whose verification push a gateway refused as not ours: removed.
    public var devicesRejected: Int = 0
    /// Subscribed boxes not asked for because no device in them is verified yet.
    public var boxesUnverified: Int = 0

    public init(id: Int64 = 0, startedAt: Int64, dryRun: Bool = false) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = nil
        self.status = .running
        self.dryRun = dryRun
        self.boxes = 0
        self.forecastsCached = 0
        self.forecastsFreshByRun = 0
        self.forecastsFetched = 0
        self.boxesFailed = 0
        self.boxesLeftOut = 0
        self.forecastRequests = 0
        self.weightUsed = 0
        self.verdicts = 0
        self.alertsPlanned = 0
        self.alertsCarriedOver = 0
        self.alertsDelivered = 0
        self.failed = [:]
        self.tokensPruned = 0
        self.byPlatform = PlatformDeliveries()
        self.resendMilliseconds = 0
        self.forecastMilliseconds = 0
        self.planningMilliseconds = 0
        self.storeMilliseconds = 0
        self.deliveryMilliseconds = 0
        self.durationMilliseconds = 0
        self.error = nil
    }

    /// Failed sends over all classes.
    public var alertsFailed: Int { failed.values.reduce(0, +) }

    /// Why a run that did not complete was so, from its counts and its first failures:
    /// `box-failures=3: transport: could not resolve api.open-meteo.com`. Nil when nothing failed.
    public var failureReason: String? {
        var parts: [String] = []
        if boxesFailed > 0 { parts.append("box-failures=\(boxesFailed)" + (firstBoxFailure.map { ": \($0)" } ?? "")) }
        let pushFailures = (failed[.temporary] ?? 0) + (failed[.permanent] ?? 0) + (failed[.auth] ?? 0)
        if pushFailures > 0 { parts.append("push-failures=\(pushFailures)" + (firstPushFailure.map { ": \($0)" } ?? "")) }
        if boxesLeftOut > 0 && !dryRun { parts.append("left-out=\(boxesLeftOut): the forecast quota budget is spent") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The status of a run that went through to its end, from its counts: `failed` when boxes
    /// failed and none got a forecast, or pushes failed and none was delivered; `degraded`
    /// when some boxes or pushes failed, or boxes were left out because the quota budget did
    /// not cover them (their subscribers got no fresh verdict this run; they are asked for
    /// first next run; a dry run leaves out what is not cached by design); else `completed`. Pushes to tokens the gateway no longer knows
    /// (pruned) and entries whose frost window ended are not failures of the run.
    public var outcome: Status {
        let pushFailures = (failed[.temporary] ?? 0) + (failed[.permanent] ?? 0) + (failed[.auth] ?? 0)
        if boxesFailed > 0 && forecastsCached + forecastsFetched == 0 { return .failed }
        if pushFailures > 0 && alertsDelivered == 0 { return .failed }
        if boxesFailed > 0 || pushFailures > 0 || (boxesLeftOut > 0 && !dryRun) { return .degraded }
        return .completed
    }

    /// One line for logs and the CLI.
    public var line: String {
        let failures = DeliveryFailureClass.allCases.map { "\($0.rawValue)=\(failed[$0] ?? 0)" }.joined(separator: " ")
        let weight = (weightUsed * 100).rounded() / 100
        return "run \(id)\(dryRun ? " (dry run)" : "") \(status.rawValue): boxes=\(boxes) cached=\(forecastsCached) fresh-by-run=\(forecastsFreshByRun)"
            + " fetched=\(forecastsFetched)"
            + " box-failures=\(boxesFailed) left-out=\(boxesLeftOut) requests=\(forecastRequests) weight=\(weight)"
            + " verdicts=\(verdicts) planned=\(alertsPlanned) carried-over=\(alertsCarriedOver) delivered=\(alertsDelivered)"
            + " failed[\(failures)] pruned=\(tokensPruned)\(byPlatform.isEmpty ? "" : " platforms[\(byPlatform)]") resend=\(resendMilliseconds)ms forecasts=\(forecastMilliseconds)ms"
            + " planning=\(planningMilliseconds)ms store=\(storeMilliseconds)ms delivery=\(deliveryMilliseconds)ms duration=\(durationMilliseconds)ms"
            + (error.map { " error=\($0)" } ?? "")
            + " held=\(alertsHeld) released=\(alertsReleased) held-expired=\(alertsHeldExpired)"
            + " verified=\(devicesVerified) rejected=\(devicesRejected) unverified-boxes=\(boxesUnverified)"
            + " ensembles-cached=\(ensemblesCached) ensembles-fetched=\(ensemblesFetched) probability_fallback=\(probabilityFallback)"
    }
}

extension NotifyRunSummary {
    /// The counts and times a shared run's parts add up to.
    static let summedCounts: [WritableKeyPath<NotifyRunSummary, Int> & Sendable] = [
        \.forecastsCached, \.forecastsFreshByRun, \.forecastsFetched, \.boxesFailed, \.boxesLeftOut, \.forecastRequests, \.verdicts,
        \.alertsPlanned, \.alertsCarriedOver, \.alertsDelivered, \.tokensPruned, \.resendMilliseconds,
        \.forecastMilliseconds, \.planningMilliseconds, \.storeMilliseconds, \.deliveryMilliseconds,
        \.alertsHeld, \.alertsReleased, \.alertsHeldExpired, \.devicesVerified, \.devicesRejected, \.boxesUnverified,
        \.ensemblesCached, \.ensemblesFetched, \.probabilityFallback,
    ]

    /// One run's summary from the parts its workers did (a run shared by several instances):
    /// counts and times added up, the earliest start, the latest finish, the run's status
    /// from the sums (interrupted or failed when any part was, the first error kept), and
    /// `boxes` the run's box count.
    public static func combining(_ parts: [NotifyRunSummary], runID: Int64, boxes: Int) -> NotifyRunSummary {
        var total = NotifyRunSummary(id: runID, startedAt: parts.map(\.startedAt).min() ?? 0)
        total.boxes = boxes
        total.finishedAt = parts.compactMap(\.finishedAt).max()
        for part in parts {
            for count in Self.summedCounts { total[keyPath: count] += part[keyPath: count] }
            total.weightUsed += part.weightUsed
            for (failure, count) in part.failed { total.failed[failure, default: 0] += count }
            total.byPlatform.add(part.byPlatform)
            if total.error == nil { total.error = part.error }
        }
        if let finished = total.finishedAt { total.durationMilliseconds = Int(max(0, finished - total.startedAt)) * 1_000 }
        let statuses = Set(parts.map(\.status))
        total.status =
            statuses.contains(.interrupted) ? .interrupted : statuses.contains(.failed) ? .failed : total.outcome
        return total
    }
}

/// A run's delivered and failed alerts by platform.
public struct PlatformDeliveries: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The counts of one platform.
    public struct Counts: Sendable, Hashable, Codable {
        public var delivered: Int
        public var failed: Int

        public init(delivered: Int = 0, failed: Int = 0) {
            self.delivered = delivered
            self.failed = failed
        }
    }

    /// Platforms with at least one alert delivered or failed.
    public var counts: [DevicePlatform: Counts]

    public init(_ counts: [DevicePlatform: Counts] = [:]) {
        self.counts = counts.filter { $0.value != Counts() }
    }

    public var isEmpty: Bool { counts.isEmpty }

    public subscript(platform: DevicePlatform) -> Counts { counts[platform] ?? Counts() }

    public mutating func delivered(_ platform: DevicePlatform, _ count: Int = 1) {
        guard count > 0 else { return }
        counts[platform, default: Counts()].delivered += count
    }

    public mutating func failed(_ platform: DevicePlatform, _ count: Int = 1) {
        guard count > 0 else { return }
        counts[platform, default: Counts()].failed += count
    }

    public mutating func add(_ other: PlatformDeliveries) {
        for (platform, counts) in other.counts {
            delivered(platform, counts.delivered)
            failed(platform, counts.failed)
        }
    }

    /// `android=delivered/failed ios=delivered/failed`, platforms in name order.
    public var description: String {
        counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value.delivered)/\($0.value.failed)" }
            .joined(separator: " ")
    }
}

extension KeyedDecodingContainer {
    /// A summary stored before runs were counted by platform (a shared run's part written by
    /// an older version) has none: read as empty rather than failing the whole summary.
    public func decode(_ type: PlatformDeliveries.Type, forKey key: Key) throws -> PlatformDeliveries {
        try decodeIfPresent(type, forKey: key) ?? PlatformDeliveries()
    }
}
