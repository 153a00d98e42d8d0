import FrostboxCore

/// A kept night's check as the SQL stores keep it in the night's row.
struct NightCheckRow: Sendable, Hashable {
    var state: NightCheckState
    var region: VerificationRegion
    var stratum: String
    var weight: Double
    var observedMinimumC: Double?
    var checkedAt: Int64?
}

extension InMemoryNotifierStore: NightCheckStore {
    public func dueNights(endedBefore: Int64, limit: Int) async throws -> [DueNight] {
        state.withLock { state in
            state.nights.filter { state.nightChecks[$0.key] == nil && $0.value.verdict.windowEnd < endedBefore }
                .map(\.value)
                .sorted { ($0.verdict.windowEnd, $0.verdict.box.key) < ($1.verdict.windowEnd, $1.verdict.box.key) }
                .prefix(limit)
                .map { DueNight(box: $0.verdict.box, night: $0.verdict.night, alertedLevel: $0.alertedLevel) }
        }
    }

    public func keep(_ choices: [NightChoice]) async throws {
        state.withLock { state in
            for choice in choices {
                let key = NightKey(box: choice.box.key, night: choice.night.compactNumber)
                guard state.nights[key] != nil, state.nightChecks[key] == nil else { continue }
                state.nightChecks[key] = NightCheckRow(
                    state: choice.chosen ? .chosen : .skipped, region: choice.region, stratum: choice.stratum, weight: choice.weight)
            }
        }
    }

    public func chosenNights(limit: Int, askedBefore: Int64) async throws -> [NightRecord] {
        state.withLock { state in
            state.nights.filter { night in
                guard let check = state.nightChecks[night.key], check.state == .chosen else { return false }
                return check.checkedAt.map { $0 < askedBefore } ?? true
            }
            .map(\.value)
            .sorted { ($0.verdict.windowEnd, $0.verdict.box.key) < ($1.verdict.windowEnd, $1.verdict.box.key) }
            .prefix(limit)
            .map { $0 }
        }
    }

    public func keep(_ observations: [NightObservation], at now: Int64, givingUpBefore: Int64) async throws {
        state.withLock { state in
            for observation in observations {
                let key = NightKey(box: observation.box.key, night: observation.night.compactNumber)
                guard let record = state.nights[key], var check = state.nightChecks[key], check.state == .chosen else { continue }
                if let low = observation.observedMinimumC {
                    check.state = .observed
                    check.observedMinimumC = low
                } else if record.verdict.windowEnd < givingUpBefore {
                    check.state = .unavailable
                }
                check.checkedAt = now
                state.nightChecks[key] = check
            }
        }
    }

    public func verifiedNights(since: LocalDate?) async throws -> [VerifiedNight] {
        state.withLock { state in
            state.nights.compactMap { key, record -> VerifiedNight? in
                guard let check = state.nightChecks[key], check.state == .observed, let low = check.observedMinimumC,
                    since.map({ record.verdict.night >= $0 }) ?? true
                else { return nil }
                return record.verified(region: check.region, observedMinimumC: low, weight: check.weight, stratum: check.stratum)
            }
            .sorted { ($0.night, $0.region) < ($1.night, $1.region) }
        }
    }

    public func nightCheckCounts() async throws -> NightCheckCounts {
        state.withLock { state in
            var counts = NightCheckCounts()
            for key in state.nights.keys { counts.add(state: state.nightChecks[key]?.state, count: 1) }
            return counts
        }
    }

    public func claimNightCheck(owner: String, at now: Int64, until: Int64) async throws -> Bool {
        state.withLock { state in
            if let lease = state.nightCheckLease, lease.owner != owner, lease.until > now { return false }
            state.nightCheckLease = (owner, until)
            return true
        }
    }

    public func releaseNightCheck(owner: String) async throws {
        state.withLock { state in
            if state.nightCheckLease?.owner == owner { state.nightCheckLease = nil }
        }
    }
}
