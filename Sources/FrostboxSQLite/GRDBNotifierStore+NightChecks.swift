import FrostboxCore
import GRDB

extension GRDBNotifierStore: NightCheckStore {
    public func dueNights(endedBefore: Int64, limit: Int) async throws -> [DueNight] {
        try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT box, night, alerted_level FROM night_record
                    WHERE check_state IS NULL AND window_end < ? ORDER BY window_end, box LIMIT ?
                    """, arguments: [endedBefore, limit])
            var due: [DueNight] = []
            while let row = try rows.next() {
                guard let box = GeoBox(key: row[0]), let night = LocalDate(compactNumber: row[1]), let level = FrostLevel(rawValue: row[2])
                else { continue }
                due.append(DueNight(box: box, night: night, alertedLevel: level))
            }
            return due
        }
    }

    public func keep(_ choices: [NightChoice]) async throws {
        guard !choices.isEmpty else { return }
        try await database.writeTransaction { db in
            let update = try db.cachedStatement(
                sql: """
                    UPDATE night_record SET check_state = ?, region = ?, stratum = ?, weight = ?
                    WHERE box = ? AND night = ? AND check_state IS NULL
                    """)
            for choice in choices {
                let state = choice.chosen ? NightCheckState.chosen : .skipped
                try update.execute(arguments: [
                    state.rawValue, choice.region.description, choice.stratum, choice.weight, choice.box.key, choice.night.compactNumber,
                ])
            }
        }
    }

    public func chosenNights(limit: Int, askedBefore: Int64) async throws -> [NightRecord] {
        try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(NightRecordColumns.select) FROM night_record
                    WHERE check_state = \(NightCheckState.chosen.rawValue) AND (checked_at IS NULL OR checked_at < ?)
                    ORDER BY window_end, box LIMIT ?
                    """, arguments: [askedBefore, limit])
            var records: [NightRecord] = []
            while let row = try rows.next() {
                if let record = NightRecordColumns.record(row) { records.append(record) }
            }
            return records
        }
    }

    public func keep(_ observations: [NightObservation], at now: Int64, givingUpBefore: Int64) async throws {
        guard !observations.isEmpty else { return }
        try await database.writeTransaction { db in
            let observed = try db.cachedStatement(
                sql: """
                    UPDATE night_record SET check_state = \(NightCheckState.observed.rawValue), observed_min_c = ?, checked_at = ?
                    WHERE box = ? AND night = ? AND check_state = \(NightCheckState.chosen.rawValue)
                    """)
            let missing = try db.cachedStatement(
                sql: """
                    UPDATE night_record SET checked_at = ?1,
                        check_state = CASE WHEN window_end < ?4 THEN \(NightCheckState.unavailable.rawValue) ELSE check_state END
                    WHERE box = ?2 AND night = ?3 AND check_state = \(NightCheckState.chosen.rawValue)
                    """)
            for observation in observations {
                if let low = observation.observedMinimumC {
                    try observed.execute(arguments: [low, now, observation.box.key, observation.night.compactNumber])
                } else {
                    try missing.execute(arguments: [now, observation.box.key, observation.night.compactNumber, givingUpBefore])
                }
            }
        }
    }

    public func verifiedNights(since: LocalDate?) async throws -> [VerifiedNight] {
        try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(NightRecordColumns.select), region, stratum, weight, observed_min_c FROM night_record
                    WHERE check_state = \(NightCheckState.observed.rawValue) AND night >= ? ORDER BY night, box
                    """, arguments: [since?.compactNumber ?? 0])
            var nights: [VerifiedNight] = []
            while let row = try rows.next() {
                guard let record = NightRecordColumns.record(row) else { continue }
                let base = NightRecordColumns.count
                guard let observed: Double = row[base + 3] else { continue }
                nights.append(
                    record.verified(
                        region: VerificationRegion(text: row[base] ?? ""), observedMinimumC: observed, weight: row[base + 2] ?? 1,
                        stratum: row[base + 1] ?? NightSampler.censusStratum))
            }
            return nights
        }
    }

    public func nightCheckCounts() async throws -> NightCheckCounts {
        try await database.pool.read { db in
            var counts = NightCheckCounts()
            let rows = try Row.fetchCursor(db, sql: "SELECT check_state, count(*) FROM night_record GROUP BY check_state")
            while let row = try rows.next() {
                counts.add(state: (row[0] as Int?).flatMap(NightCheckState.init(rawValue:)), count: row[1])
            }
            return counts
        }
    }

    public func claimNightCheck(owner: String, at now: Int64, until: Int64) async throws -> Bool {
        try await database.writeTransaction { db in
            try db.execute(
                sql: """
                    INSERT INTO night_check_lease (id, owner, until) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, until = excluded.until
                    WHERE night_check_lease.owner = excluded.owner OR night_check_lease.until <= ?
                    """, arguments: [owner, until, now])
            return try String.fetchOne(db, sql: "SELECT owner FROM night_check_lease WHERE id = 1") == owner
        }
    }

    public func releaseNightCheck(owner: String) async throws {
        try await database.writeTransaction { db in
            try db.execute(sql: "DELETE FROM night_check_lease WHERE id = 1 AND owner = ?", arguments: [owner])
        }
    }
}
