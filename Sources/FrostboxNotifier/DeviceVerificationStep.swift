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
    /// How long a device may stay pending (seconds since its first registration) before it
    /// is deleted with everything stored about it (`devices.pending_ttl`); 0: kept forever.
    let pendingTTL: Int64

    /// A week: long enough for a phone that was off over a weekend, short enough that
    /// invented tokens of apps no gateway knows do not pile up.
    public static let defaultPendingTTL: Int64 = 7 * 86_400

    public init(
        store: any DeviceVerificationStore, removingReasons: Set<String> = [], pageSize: Int = 1_000, pendingTTL: Int64 = defaultPendingTTL
    ) {
        self.store = store
        self.removingReasons = removingReasons
        self.pageSize = max(1, pageSize)
        self.pendingTTL = max(0, pendingTTL)
    }
}

extension NotifyRun {
    /// One verification round over every pending device (see `DeviceVerification`), then the
    /// counts the run reports; nil when devices need no proving. Devices pending longer than
    /// the TTL go first. A verified device is recorded as its answer comes (grouped commits,
    /// as alerts' outcomes are), and a push counts against `concurrency` from the moment it is
    /// handed out until its device is durably verified (or its answer says it stays pending),
    /// so a run killed — or a database lost — mid-round sends again at most that many. (A
    /// browser shows its verification push, so a resend is seen.)
    func verifyDevices(logger: Logger) async throws -> VerificationRound? {
        guard let verification else { return nil }
        var tally = VerificationTally()
        if verification.pendingTTL > 0 {
            tally.expired = try await verification.store.purgePendingDevices(createdBefore: clock() - verification.pendingTTL)
        }
        var waitingReasons: [String: Int] = [:]
        var after: DeviceToken?
        while true {
            try Task.checkCancellation()
            let readAt = clock()
            let page = try await verification.store.pendingDevices(after: after, limit: verification.pageSize)
            guard let last = page.last else { break }
            after = last.token
            var verified = 0
            var rejected: [(token: DeviceToken, cutoff: Int64)] = []
            let marks = OutcomeLog<DeviceToken> { [store = verification.store, clock] tokens in try await store.markVerified(tokens, at: clock()) }
            for (index, outcome) in try await sendBounded(page.map { $0.verificationPush(at: readAt) }, marks: marks) {
                if case .delivered = outcome {
                    verified += 1
                } else if VerificationTally.rejects(outcome, removingReasons: verification.removingReasons) {
                    // A gateway that says when the token died prunes only a device not registered since.
                    rejected.append((page[index].token, outcome.pruneCutoff(sentAt: readAt)))
                    logger.debug(
                        "a device's verification push was refused", metadata: ["token": "\(page[index].token)", "outcome": "\(outcome)"])
                } else {
                    tally.waiting += 1
                    waitingReasons[Self.reason(of: outcome), default: 0] += 1
                }
            }
            try await marks.finish()
            tally.verified += verified
            for (token, cutoff) in rejected where try await store.pruneDevice(token, registeredNoLaterThan: cutoff) { tally.rejected += 1 }
        }
        let counts = try await verification.store.verificationCounts()
        for (result, count) in [("verified", tally.verified), ("rejected", tally.rejected), ("waiting", tally.waiting), ("expired", tally.expired)]
        where count > 0 {
            Counter(label: FrostboxMetrics.Name.deviceVerifications, dimensions: [(FrostboxMetrics.Label.result, result)]).increment(by: count)
        }
        Gauge(label: FrostboxMetrics.Name.devicesPending).record(counts.pendingDevices)
        Gauge(label: FrostboxMetrics.Name.boxesLeftOut, dimensions: [(FrostboxMetrics.Label.reason, "unverified")])
            .record(counts.boxesAwaitingVerification)
        if tally != VerificationTally() || counts.pendingDevices > 0 {
            // One line a run, whatever the number of devices: the failures as counts by reason.
            logger.notice(
                "verified pending devices",
                metadata: [
                    "verified": "\(tally.verified)", "rejected": "\(tally.rejected)", "waiting": "\(tally.waiting)",
                    "expired": "\(tally.expired)", "boxes_awaiting_verification": "\(counts.boxesAwaitingVerification)",
                    "waiting_reasons": "\(waitingReasons.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))",
                ])
        }
        return (tally, counts)
    }

    /// Sends a page's verification pushes in chunks of half of `concurrency`, two at a time, each
    /// chunk waiting until it fits under `concurrency` pushes outstanding (handed out, outcome
    /// not durable); a delivered push's device goes to `marks` and counts until it is written.
    /// Answers each push's outcome by its index in `pushes`.
    func sendBounded(_ pushes: [PushNotification], marks: OutcomeLog<DeviceToken>) async throws -> [(Int, PushOutcome)] {
        let bound = max(1, configuration.concurrency)
        let chunkSize = max(1, bound / 2)
        let push = self.push
        return try await withThrowingTaskGroup(of: [(Int, PushOutcome)].self) { group in
            var answered: [(Int, PushOutcome)] = []
            answered.reserveCapacity(pushes.count)
            var inFlight = 0
            for start in stride(from: 0, to: pushes.count, by: chunkSize) {
                if inFlight >= 2, let done = try await group.next() {
                    answered += done
                    inFlight -= 1
                }
                let chunk = Array(pushes[start..<min(pushes.count, start + chunkSize)])
                try await marks.reserve(chunk.count, bound: bound)
                group.addTask {
                    var outcomes: [(Int, PushOutcome)] = []
                    for await (index, outcome) in push.send(chunk) where chunk.indices.contains(index) {
                        if case .delivered = outcome { marks.add(chunk[index].token, reserved: true) } else { marks.release(1) }
                        outcomes.append((start + index, outcome))
                    }
                    // A push the port never answered was not sent to completion: its room is given back.
                    marks.release(chunk.count - outcomes.count)
                    return outcomes
                }
                inFlight += 1
            }
            for try await done in group { answered += done }
            return answered
        }
    }

    /// A failed verification push's reason, for the run's count by reason.
    static func reason(of outcome: PushOutcome) -> String {
        switch outcome {
        case .delivered: "delivered"
        case .invalidToken(let reason, _), .permanentFailure(_, let reason), .authFailure(let reason), .temporaryFailure(let reason): reason
        }
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
