import FrostboxCore
import Logging
import Metrics

/// Devices are proven real before they cost forecasts (`DeviceVerification`): each run first
/// sends every pending device a verification push (one the person never sees), a page of
/// devices at a time through the batched push port; a device whose push a gateway accepts is
/// verified, one it refuses as not ours (`VerificationTally.rejects`) is removed with its
/// subscriptions, and one whose push failed for another reason stays pending for the next
/// run. The pending devices are the durable queue: a crash mid-round leaves them pending.
public struct DeviceVerificationStep: Sendable {
    let store: any DeviceVerificationStore
    /// Gateway reasons of a permanent failure that say the device cannot be pushed to (a token
    /// of another app, a push that kills the connection even alone): removed like an invalid token.
    let removingReasons: Set<String>
    /// Devices per page (and per push batch).
    let pageSize: Int

    public init(store: any DeviceVerificationStore, removingReasons: Set<String> = [], pageSize: Int = 1_000) {
        self.store = store
        self.removingReasons = removingReasons
        self.pageSize = max(1, pageSize)
    }
}

extension NotifyRun {
    /// One verification round over every pending device (see `DeviceVerification`), then the
    /// counts the run reports; nil when devices need no proving.
    func verifyDevices(logger: Logger) async throws -> VerificationRound? {
        guard let verification else { return nil }
        var tally = VerificationTally()
        var after: DeviceToken?
        while true {
            try Task.checkCancellation()
            let readAt = clock()
            let page = try await verification.store.pendingDevices(after: after, limit: verification.pageSize)
            guard let last = page.last else { break }
            after = last.token
            var verified: [DeviceToken] = []
            var rejected: [DeviceToken] = []
            for await (index, outcome) in push.send(page.map { $0.verificationPush(at: readAt) }) {
                if case .delivered = outcome {
                    verified.append(page[index].token)
                } else if VerificationTally.rejects(outcome, removingReasons: verification.removingReasons) {
                    rejected.append(page[index].token)
                    logger.info(
                        "removed a device whose verification push was refused",
                        metadata: ["token": "\(page[index].token)", "outcome": "\(outcome)"])
                } else {
                    tally.waiting += 1
                    logger.debug(
                        "a device stays pending: its verification push failed", metadata: ["token": "\(page[index].token)", "outcome": "\(outcome)"])
                }
            }
            try await verification.store.markVerified(verified, at: clock())
            tally.verified += verified.count
            // A device registered again since the page was read keeps its registration.
            for token in rejected where try await store.pruneDevice(token, registeredNoLaterThan: readAt) { tally.rejected += 1 }
        }
        let counts = try await verification.store.verificationCounts()
        for (result, count) in [("verified", tally.verified), ("rejected", tally.rejected), ("waiting", tally.waiting)] where count > 0 {
            Counter(label: FrostboxMetrics.Name.deviceVerifications, dimensions: [(FrostboxMetrics.Label.result, result)]).increment(by: count)
        }
        Gauge(label: FrostboxMetrics.Name.devicesPending).record(counts.pendingDevices)
        Gauge(label: FrostboxMetrics.Name.boxesLeftOut, dimensions: [(FrostboxMetrics.Label.reason, "unverified")])
            .record(counts.boxesAwaitingVerification)
        if tally != VerificationTally() || counts.pendingDevices > 0 {
            logger.notice(
                "verified pending devices",
                metadata: [
                    "verified": "\(tally.verified)", "rejected": "\(tally.rejected)", "waiting": "\(tally.waiting)",
                    "boxes_awaiting_verification": "\(counts.boxesAwaitingVerification)",
                ])
        }
        return (tally, counts)
    }
}

/// What a verification round did, and what it left pending.
typealias VerificationRound = (tally: VerificationTally, counts: VerificationCounts)

extension NotifyRunSummary {
    /// Takes in a verification round's outcome; `countsBoxes` false leaves `boxesUnverified`
    /// to the part of a shared run that listed its boxes.
    mutating func add(_ verification: VerificationRound?, countsBoxes: Bool = true) {
        guard let verification else { return }
        devicesVerified += verification.tally.verified
        devicesRejected += verification.tally.rejected
        if countsBoxes { boxesUnverified = verification.counts.boxesAwaitingVerification }
    }
}
