import FrostboxCore
import PostgresNIO

extension PostgresNotifierStore: NightCheckStore {
    public func dueNights(endedBefore: Int64, limit: Int) async throws -> [DueNight] {
        let rows = try await database.query(
            """
            SELECT box, night, alerted_level FROM night_record
            WHERE check_state IS NULL AND window_end < \(endedBefore) ORDER BY window_end, box LIMIT \(limit)
            """)
        var due: [DueNight] = []
        for try await (key, compact, alerted) in rows.decode((Int64, Int, Int16).self) {
            guard let box = GeoBox(key: key), let night = LocalDate(compactNumber: compact), let level = FrostLevel(rawValue: Int(alerted))
            else { continue }
            due.append(DueNight(box: box, night: night, alertedLevel: level))
        }
        return due
    }

    public func keep(_ choices: [NightChoice]) async throws {
        guard !choices.isEmpty else { return }
        let sorted = choices.sorted { ($0.box.key, $0.night.compactNumber) < ($1.box.key, $1.night.compactNumber) }
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: sorted.count, by: Self.chunk) {
                let chunk = sorted[start..<min(start + Self.chunk, sorted.count)]
                try await connection.query(
                    """
                    UPDATE night_record AS r SET check_state = u.state, region = u.region, stratum = u.stratum, weight = u.weight
                    FROM unnest(\(chunk.map(\.box.key)), \(chunk.map { $0.night.compactNumber }),
                                \(chunk.map { Int16(($0.chosen ? NightCheckState.chosen : .skipped).rawValue) }),
                                \(chunk.map(\.region.description)), \(chunk.map(\.stratum)), \(chunk.map(\.weight)))
                        AS u(box, night, state, region, stratum, weight)
                    WHERE r.box = u.box AND r.night = u.night AND r.check_state IS NULL
                    """, logger: logger)
            }
        }
    }

    public func chosenNights(limit: Int, askedBefore: Int64) async throws -> [NightRecord] {
        let rows = try await database.query(
            """
            SELECT \(unescaped: Self.nightColumns) FROM night_record
            WHERE check_state = \(Int16(NightCheckState.chosen.rawValue)) AND (checked_at IS NULL OR checked_at < \(askedBefore))
            ORDER BY window_end, box LIMIT \(limit)
            """)
        var records: [NightRecord] = []
        for try await row in rows {
            if let record = try Self.nightRecord(row) { records.append(record) }
        }
        return records
    }

    public func keep(_ observations: [NightObservation], at now: Int64, givingUpBefore: Int64) async throws {
        guard !observations.isEmpty else { return }
        let sorted = observations.sorted { ($0.box.key, $0.night.compactNumber) < ($1.box.key, $1.night.compactNumber) }
        let chosen = Int16(NightCheckState.chosen.rawValue)
        let observed = Int16(NightCheckState.observed.rawValue)
        let unavailable = Int16(NightCheckState.unavailable.rawValue)
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: sorted.count, by: Self.chunk) {
                let chunk = sorted[start..<min(start + Self.chunk, sorted.count)]
                // A night without a whole observation (NaN) stays chosen, stamped as asked, until it is given up.
                try await connection.query(
                    """
                    UPDATE night_record AS r SET
                        check_state = CASE WHEN u.low <> 'NaN' THEN \(observed)
                                           WHEN r.window_end < \(givingUpBefore) THEN \(unavailable) ELSE \(chosen) END,
                        observed_min_c = NULLIF(u.low, 'NaN'), checked_at = \(now)
                    FROM unnest(\(chunk.map(\.box.key)), \(chunk.map { $0.night.compactNumber }),
                                \(chunk.map { $0.observedMinimumC ?? .nan })) AS u(box, night, low)
                    WHERE r.box = u.box AND r.night = u.night AND r.check_state = \(chosen)
                    """, logger: logger)
            }
        }
    }

    public func verifiedNights(since: LocalDate?) async throws -> [VerifiedNight] {
        let rows = try await database.query(
            """
            SELECT \(unescaped: Self.nightColumns), coalesce(region, '??'), coalesce(stratum, \(NightSampler.censusStratum)),
                   coalesce(weight, 1), observed_min_c
            FROM night_record
            WHERE check_state = \(Int16(NightCheckState.observed.rawValue)) AND night >= \(since?.compactNumber ?? 0) ORDER BY night, box
            """)
        var nights: [VerifiedNight] = []
        for try await row in rows {
            // One decode of the row: the night's columns, then region, stratum, weight and the observed low.
            let c = try row.decode(
                (Int64, Int, Int64, Int64, Int, Int16, Double, Double, Double, Double, String, Int64, Int16, Int64, String, String, String, Double, Double).self
            )
            guard let record = Self.nightRecord((c.0, c.1, c.2, c.3, c.4, c.5, c.6, c.7, c.8, c.9, c.10, c.11, c.12, c.13, c.14)) else { continue }
            nights.append(record.verified(region: VerificationRegion(text: c.15), observedMinimumC: c.18, weight: c.17, stratum: c.16))
        }
        return nights
    }

    public func nightCheckCounts() async throws -> NightCheckCounts {
        let rows = try await database.query("SELECT coalesce(check_state, 0)::smallint, count(*) FROM night_record GROUP BY check_state")
        var counts = NightCheckCounts()
        for try await (state, count) in rows.decode((Int16, Int64).self) {
            counts.add(state: NightCheckState(rawValue: Int(state)), count: Int(count))
        }
        return counts
    }

    public func claimNightCheck(owner: String, at now: Int64, until: Int64) async throws -> Bool {
        let rows = try await database.query(
            """
            INSERT INTO night_check_lease AS l (id, owner, until) VALUES (1, \(owner), \(until))
            ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, until = excluded.until
            WHERE l.owner = excluded.owner OR l.until <= \(now)
            RETURNING owner
            """, writes: true)
        var held = false
        for try await holder in rows.decode(String.self) { held = holder == owner }
        return held
    }

    public func releaseNightCheck(owner: String) async throws {
        try await database.query("DELETE FROM night_check_lease WHERE id = 1 AND owner = \(owner)", writes: true)
    }
}
