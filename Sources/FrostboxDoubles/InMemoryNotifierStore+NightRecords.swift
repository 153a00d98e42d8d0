import FrostboxCore

extension InMemoryNotifierStore: NightRecordStore {
    public func keep(_ verdicts: [KeptVerdict]) async throws {
        state.withLock { state in
            for verdict in verdicts {
                let key = NightKey(box: verdict.box.key, night: verdict.night.compactNumber)
                guard var record = state.nights[key] else {
                    state.nights[key] = NightRecord(verdict: verdict)
                    continue
                }
                // As the SQL stores: only a verdict made before the night began, and not older than the kept one.
                guard verdict.judgedAt < record.verdict.windowStart, verdict.judgedAt >= record.verdict.judgedAt else { continue }
                record.verdict = verdict
                state.nights[key] = record
            }
        }
    }

    public func keep(_ alerts: [NightAlert]) async throws {
        state.withLock { state in
            for alert in alerts {
                let key = NightKey(box: alert.box.key, night: alert.night.compactNumber)
                guard var record = state.nights[key] else { continue }
                record.alertedLevel = max(record.alertedLevel, alert.level)
                if record.firstAlertAt.map({ alert.sentAt < $0 }) ?? true {
                    record.firstAlertAt = alert.sentAt
                    record.lead = alert.lead
                }
                state.nights[key] = record
            }
        }
    }

    public func nightRecords(in boxes: [GeoBox]) async throws -> [NightRecord] {
        let keys = Set(boxes.map(\.key))
        return state.withLock { state in
            state.nights.values.filter { keys.contains($0.verdict.box.key) }
                .sorted { ($0.verdict.box.key, $0.verdict.night) < ($1.verdict.box.key, $1.verdict.night) }
        }
    }

    @discardableResult
    public func purgeNights(endedBefore: Int64) async throws -> Int {
        state.withLock { state in
            let before = state.nights.count
            state.nights = state.nights.filter { $0.value.verdict.windowEnd >= endedBefore }
            state.nightChecks = state.nightChecks.filter { state.nights[$0.key] != nil }
            return before - state.nights.count
        }
    }
}
