import FrostboxCore
import FrostboxStorageFormats
import GRDB

extension GRDBNotifierStore: NightRecordStore {
    public func keep(_ verdicts: [KeptVerdict]) async throws {
        guard !verdicts.isEmpty else { return }
        try await database.writeTransaction { db in
            // A newer verdict made before the night began replaces the kept one; one made after
            // it began, or older than the kept one (another instance's late write), does not.
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO night_record (box, night, window_start, window_end, utc_offset_seconds, level, minimum_c,
                                              p_frost_risk, p_freeze, p_hard_freeze, runs, judged_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (box, night) DO UPDATE SET
                        window_start = excluded.window_start, window_end = excluded.window_end,
                        utc_offset_seconds = excluded.utc_offset_seconds, level = excluded.level, minimum_c = excluded.minimum_c,
                        p_frost_risk = excluded.p_frost_risk, p_freeze = excluded.p_freeze, p_hard_freeze = excluded.p_hard_freeze,
                        runs = excluded.runs, judged_at = excluded.judged_at
                    WHERE excluded.judged_at < night_record.window_start AND excluded.judged_at >= night_record.judged_at
                    """)
            for verdict in verdicts {
                try upsert.execute(arguments: NightRecordColumns.arguments(of: verdict))
            }
        }
    }

    public func keep(_ alerts: [NightAlert]) async throws {
        guard !alerts.isEmpty else { return }
        try await database.writeTransaction { db in
            // Every expression reads the row as it was: the first alert and its lead move together.
            let update = try db.cachedStatement(
                sql: """
                    UPDATE night_record SET
                        alerted_level = max(alerted_level, ?1),
                        lead = CASE WHEN first_alert_at IS NULL OR ?2 < first_alert_at THEN ?3 ELSE lead END,
                        first_alert_at = CASE WHEN first_alert_at IS NULL OR ?2 < first_alert_at THEN ?2 ELSE first_alert_at END
                    WHERE box = ?4 AND night = ?5
                    """)
            for alert in alerts {
                try update.execute(arguments: [alert.level.rawValue, alert.sentAt, alert.lead.rawValue, alert.box.key, alert.night.compactNumber])
            }
        }
    }

    public func nightRecords(in boxes: [GeoBox]) async throws -> [NightRecord] {
        let keys = Array(Set(boxes.map(\.key))).sorted()
        guard !keys.isEmpty else { return [] }
        return try await database.pool.read { db in
            var records: [NightRecord] = []
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = Array(keys[start..<min(start + 500, keys.count)])
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT \(NightRecordColumns.select) FROM night_record
                        WHERE box IN (\(chunk.map { _ in "?" }.joined(separator: ","))) ORDER BY box, night
                        """, arguments: StatementArguments(chunk))
                while let row = try rows.next() {
                    if let record = NightRecordColumns.record(row) { records.append(record) }
                }
            }
            return records
        }
    }

    @discardableResult
    public func purgeNights(endedBefore: Int64) async throws -> Int {
        try await database.writeTransaction { db in
            try db.execute(sql: "DELETE FROM night_record WHERE window_end < ?", arguments: [endedBefore])
            return db.changesCount
        }
    }
}

/// The night record's columns as both stores' statements list them.
enum NightRecordColumns {
    static let select = """
        box, night, window_start, window_end, utc_offset_seconds, level, minimum_c, p_frost_risk, p_freeze, p_hard_freeze, runs,
        judged_at, alerted_level, first_alert_at, lead
        """
    /// How many columns `select` lists: the columns a statement adds after them start here.
    static let count = select.split(separator: ",").count

    static func arguments(of verdict: KeptVerdict) -> StatementArguments {
        [
            verdict.box.key, verdict.night.compactNumber, verdict.windowStart, verdict.windowEnd, verdict.utcOffsetSeconds,
            verdict.level.rawValue, verdict.minimumC, verdict.probabilities[.frostRisk], verdict.probabilities[.freeze],
            verdict.probabilities[.hardFreeze], ModelRunsCodec.encode(verdict.runs), verdict.judgedAt,
        ]
    }

    static func record(_ row: Row) -> NightRecord? {
        guard let box = GeoBox(key: row[0]), let night = LocalDate(compactNumber: row[1]), let level = FrostLevel(rawValue: row[5]),
            let alerted = FrostLevel(rawValue: row[12])
        else { return nil }
        var probabilities: [FrostLevel: Double] = [:]
        for (index, level) in [(7, FrostLevel.frostRisk), (8, .freeze), (9, .hardFreeze)] {
            if let p: Double = row[index] { probabilities[level] = p }
        }
        let verdict = KeptVerdict(
            box: box, night: night, windowStart: row[2], windowEnd: row[3], utcOffsetSeconds: row[4], level: level, minimumC: row[6],
            probabilities: probabilities, runs: ModelRunsCodec.decode(row[10]) ?? [], judgedAt: row[11])
        return NightRecord(verdict: verdict, alertedLevel: alerted, firstAlertAt: row[13], lead: (row[14] as String?).flatMap(AlertLead.init(rawValue:)))
    }
}
