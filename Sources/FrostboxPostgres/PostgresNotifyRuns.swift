import FrostboxCore
import FrostboxStorageFormats
import PostgresNIO

/// The `notify_run` table's columns and the run summary they hold.
enum PostgresNotifyRuns {
    /// Every column but `id` (`NotifyRunColumns`, shared with the SQLite adapter).
    static let columns = NotifyRunColumns.names

    /// The summary's values as bindings, in the order of `columns`.
    static func bindings(_ s: NotifyRunSummary) -> PostgresBindings {
        var b = PostgresBindings(capacity: columns.count + 1)
        for value in NotifyRunColumns.values(s) {
            switch value {
            case .count(let count): b.append(Int32(clamping: count))
            case .integer(let integer): b.append(integer)
            case .real(let real): b.append(real)
            case .text(let text): b.append(text)
            }
        }
        return b
    }

    static func insert(_ s: NotifyRunSummary) -> PostgresQuery {
        let placeholders = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL: "INSERT INTO notify_run (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) RETURNING id",
            binds: bindings(s))
    }

    static func update(_ s: NotifyRunSummary) -> PostgresQuery {
        var binds = bindings(s)
        binds.append(s.id)
        let assignments = columns.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: "UPDATE notify_run SET \(assignments) WHERE id = $\(columns.count + 1)", binds: binds)
    }

    static let select = "SELECT id, " + columns.joined(separator: ", ") + " FROM notify_run"

    static func summary(_ row: PostgresRow) throws -> NotifyRunSummary {
        let r = row.makeRandomAccess()
        return try NotifyRunColumns.summary(id: try r["id"].decode(Int64.self)) { column in
            let cell = r[column.name]
            return switch column.kind {
            case .count: .count(Int(try cell.decode(Int64.self)))
            case .integer: .integer(try cell.decode(Int64.self))
            case .optionalInteger: .integer(try cell.decode(Int64?.self))
            case .real: .real(try cell.decode(Double.self))
            case .text: .text(try cell.decode(String.self))
            case .optionalText: .text(try cell.decode(String?.self))
            }
        }
    }
}
