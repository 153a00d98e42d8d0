import FrostboxCore
import NIOCore
import PostgresNIO

/// The outbox rows of a chunk copied straight into `outbox` (`COPY … FROM STDIN`) when every
/// entry carries its device's key from the subscription read: 1.68× the rows per second of
/// the bound-array statement in the engine alone (`tools/bench/postgres-outbox-write.py`,
/// docs/benchmarks.md). A COPY skips nothing, so it is taken only when every entry's device
/// was found and locked (`lockDevices`; a device gone since the read sends the chunk to the
/// statement), and it runs inside a savepoint: a (device, event) already there fails it, and the chunk is then rolled back
/// to the savepoint and written by the statement, whose rules skip those rows.
extension PostgresOutboxWriter {
    private static let copyColumns = [
        "id", "device_id", "box", "night", "level", "kind", "push_id", "message_id", "app", "environment", "status", "attempts",
        "created_at", "expires_at", "run_id", "claimed_by", "claim_run", "not_before", "frost_starts_at",
    ]

    /// Copies every entry (with its id and push id) into `outbox`; false, with nothing
    /// written, when an entry lacks a device key, its device is not among `lockedDevices` (gone,
    /// or not the key's any more), or a (device, event) is already stored (the caller then
    /// writes the chunk by the statement).
    static func copyStraight(
        _ entries: [OutboxEntry], ids: [Int64], pushIDs: [Int64], lockedDevices: Set<Int64>, runID: Int64?, worker: String,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        guard entries.allSatisfy({ $0.deviceKey.map(lockedDevices.contains) == true }) else { return false }
        var rows = ByteBuffer()
        rows.reserveCapacity(entries.count * 200)
        for (index, entry) in entries.enumerated() {
            let n = entry.notification
            let event = entry.event
            rows.writeCopyFields([
                String(ids[index]), String(entry.deviceKey ?? 0), String(event.box.key), String(event.night.compactNumber),
                String(event.level.rawValue), entry.kind.rawValue, String(pushIDs[index]), entry.storedMessageID, n.app,
                n.environment?.rawValue, "pending", String(entry.attempts), String(entry.createdAt), String(entry.alertedUntil),
                runID.map(String.init), worker, runID.map(String.init), entry.notBefore.map(String.init), entry.frostStartsAt.map(String.init),
            ])
        }
        try await connection.query("SAVEPOINT frostbox_outbox_copy", logger: logger)
        do {
            try await connection.copyFrom(table: "outbox", columns: copyColumns, logger: logger) { writer in try await writer.write(rows) }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // A (device, event) already stored.
            try await connection.query("ROLLBACK TO SAVEPOINT frostbox_outbox_copy", logger: logger)
            return false
        }
        try await connection.query("RELEASE SAVEPOINT frostbox_outbox_copy", logger: logger)
        return true
    }
}

extension ByteBuffer {
    /// One row in COPY's text format: fields separated by tabs, NULL as `\N`, backslash, tab,
    /// newline and carriage return escaped, ended by a newline.
    fileprivate mutating func writeCopyFields(_ fields: [String?]) {
        for (position, field) in fields.enumerated() {
            if position > 0 { writeInteger(UInt8(ascii: "\t")) }
            guard let field else {
                writeStaticString("\\N")
                continue
            }
            for byte in field.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): writeStaticString("\\\\")
                case UInt8(ascii: "\t"): writeStaticString("\\t")
                case UInt8(ascii: "\n"): writeStaticString("\\n")
                case UInt8(ascii: "\r"): writeStaticString("\\r")
                default: writeInteger(byte, as: UInt8.self)
                }
            }
        }
        writeStaticString("\n")
    }
}
