import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

extension PostgresNotifierStore: NightRecordStore {
    public func keep(_ verdicts: [KeptVerdict]) async throws {
        // One verdict per box and night (the latest), in key order so that instances lock alike.
        var latest: [[Int64]: KeptVerdict] = [:]
        for verdict in verdicts {
            let key = [verdict.box.key, Int64(verdict.night.compactNumber)]
            if latest[key].map({ $0.judgedAt <= verdict.judgedAt }) ?? true { latest[key] = verdict }
        }
        let unique = latest.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
        guard !unique.isEmpty else { return }
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: unique.count, by: Self.chunk) {
                let chunk = unique[start..<min(start + Self.chunk, unique.count)]
                try await connection.query(
                    """
                    INSERT INTO night_record AS r (box, night, window_start, window_end, utc_offset_seconds, level, minimum_c,
                                                   p_frost_risk, p_freeze, p_hard_freeze, runs, judged_at)
                    SELECT box, night, window_start, window_end, utc_offset_seconds, level, NULLIF(minimum_c, 'NaN'),
                           NULLIF(p_frost_risk, 'NaN'), NULLIF(p_freeze, 'NaN'), NULLIF(p_hard_freeze, 'NaN'), runs, judged_at
                    FROM unnest(\(chunk.map(\.box.key)), \(chunk.map { $0.night.compactNumber }), \(chunk.map(\.windowStart)),
                                \(chunk.map(\.windowEnd)), \(chunk.map(\.utcOffsetSeconds)), \(chunk.map { Int16($0.level.rawValue) }),
                                \(Self.column(chunk) { $0.minimumC }), \(Self.column(chunk) { $0.probabilities[.frostRisk] }),
                                \(Self.column(chunk) { $0.probabilities[.freeze] }), \(Self.column(chunk) { $0.probabilities[.hardFreeze] }),
                                \(chunk.map { ModelRunsCodec.encode($0.runs) }), \(chunk.map(\.judgedAt)))
                        AS u(box, night, window_start, window_end, utc_offset_seconds, level, minimum_c, p_frost_risk, p_freeze,
                             p_hard_freeze, runs, judged_at)
                    ON CONFLICT (box, night) DO UPDATE SET
                        window_start = excluded.window_start, window_end = excluded.window_end,
                        utc_offset_seconds = excluded.utc_offset_seconds, level = excluded.level, minimum_c = excluded.minimum_c,
                        p_frost_risk = excluded.p_frost_risk, p_freeze = excluded.p_freeze, p_hard_freeze = excluded.p_hard_freeze,
                        runs = excluded.runs, judged_at = excluded.judged_at
                    WHERE excluded.judged_at < r.window_start AND excluded.judged_at >= r.judged_at
                    """, logger: logger)
            }
        }
    }

    /// A nullable column as an array bound to a statement: NaN stands for "none" (NULLIF turns it back).
    static func column(_ chunk: ArraySlice<KeptVerdict>, _ value: (KeptVerdict) -> Double?) -> [Double] { chunk.map { value($0) ?? .nan } }

    public func keep(_ alerts: [NightAlert]) async throws {
        // One row per box and night: the highest level and the earliest alert among them.
        var merged: [[Int64]: NightAlert] = [:]
        for alert in alerts {
            let key = [alert.box.key, Int64(alert.night.compactNumber)]
            guard var kept = merged[key] else {
                merged[key] = alert
                continue
            }
            if alert.sentAt < kept.sentAt {
                kept.sentAt = alert.sentAt
                kept.lead = alert.lead
            }
            kept.level = max(kept.level, alert.level)
            merged[key] = kept
        }
        let unique = merged.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
        guard !unique.isEmpty else { return }
        let logger = database.logger
        try await database.transaction { connection in
            for start in stride(from: 0, to: unique.count, by: Self.chunk) {
                let chunk = unique[start..<min(start + Self.chunk, unique.count)]
                try await connection.query(
                    """
                    UPDATE night_record AS r SET
                        alerted_level = greatest(r.alerted_level, u.level),
                        lead = CASE WHEN r.first_alert_at IS NULL OR u.sent_at < r.first_alert_at THEN u.lead ELSE r.lead END,
                        first_alert_at = CASE WHEN r.first_alert_at IS NULL OR u.sent_at < r.first_alert_at THEN u.sent_at
                                              ELSE r.first_alert_at END
                    FROM unnest(\(chunk.map(\.box.key)), \(chunk.map { $0.night.compactNumber }), \(chunk.map { Int16($0.level.rawValue) }),
                                \(chunk.map(\.sentAt)), \(chunk.map(\.lead.rawValue)))
                        AS u(box, night, level, sent_at, lead)
                    WHERE r.box = u.box AND r.night = u.night
                    """, logger: logger)
            }
        }
    }

    public func nightRecords(in boxes: [GeoBox]) async throws -> [NightRecord] {
        let keys = Array(Set(boxes.map(\.key)))
        guard !keys.isEmpty else { return [] }
        let rows = try await database.query("SELECT \(unescaped: Self.nightColumns) FROM night_record WHERE box = ANY(\(keys)) ORDER BY box, night")
        var records: [NightRecord] = []
        for try await row in rows {
            if let record = try Self.nightRecord(row) { records.append(record) }
        }
        return records
    }

    /// The night record's columns, NULLs as NaN, -1 and '' (`nightRecord` turns them back).
    static let nightColumns = """
        box, night, window_start, window_end, utc_offset_seconds, level, coalesce(minimum_c, 'NaN'),
        coalesce(p_frost_risk, 'NaN'), coalesce(p_freeze, 'NaN'), coalesce(p_hard_freeze, 'NaN'), runs, judged_at,
        alerted_level, coalesce(first_alert_at, -1), coalesce(lead, '')
        """
    typealias NightColumns = (Int64, Int, Int64, Int64, Int, Int16, Double, Double, Double, Double, String, Int64, Int16, Int64, String)

    /// A row starting with `nightColumns` as a record; nil when it names no box, night or level.
    static func nightRecord(_ row: PostgresRow) throws -> NightRecord? {
        try nightRecord(row.decode(NightColumns.self))
    }

    static func nightRecord(_ c: NightColumns) -> NightRecord? {
        guard let box = GeoBox(key: c.0), let night = LocalDate(compactNumber: c.1), let level = FrostLevel(rawValue: Int(c.5)),
            let alerted = FrostLevel(rawValue: Int(c.12))
        else { return nil }
        var probabilities: [FrostLevel: Double] = [:]
        for (value, level) in [(c.7, FrostLevel.frostRisk), (c.8, .freeze), (c.9, .hardFreeze)] where !value.isNaN { probabilities[level] = value }
        let verdict = KeptVerdict(
            box: box, night: night, windowStart: c.2, windowEnd: c.3, utcOffsetSeconds: c.4, level: level,
            minimumC: c.6.isNaN ? nil : c.6, probabilities: probabilities, runs: ModelRunsCodec.decode(c.10) ?? [], judgedAt: c.11)
        return NightRecord(verdict: verdict, alertedLevel: alerted, firstAlertAt: c.13 < 0 ? nil : c.13, lead: AlertLead(rawValue: c.14))
    }

    @discardableResult
    public func purgeNights(endedBefore: Int64) async throws -> Int {
        try await database.query("DELETE FROM night_record WHERE window_end < \(endedBefore) RETURNING box", writes: true).collectCount()
    }
}
