import FrostboxCore
import FrostboxStorageFormats
import GRDB

/// Row of the `notify_run` table: one notify run's summary, its columns mapped by
/// `NotifyRunColumns` (shared with the PostgreSQL adapter).
struct NotifyRunRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "notify_run"

    var id: Int64?
    var summary: NotifyRunSummary

    enum Columns {
        static let id = Column("id")
    }

    init(_ summary: NotifyRunSummary) {
        id = summary.id == 0 ? nil : summary.id
        self.summary = summary
    }

    init(row: Row) throws {
        let id: Int64 = row["id"]
        self.id = id
        summary = NotifyRunColumns.summary(id: id) { column in
            switch column.kind {
            case .count: .count(row[column.name])
            case .integer, .optionalInteger: .integer(row[column.name])
            case .real: .real(row[column.name])
            case .text, .optionalText: .text(row[column.name])
            }
        }
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        for (name, value) in zip(NotifyRunColumns.names, NotifyRunColumns.values(summary)) {
            switch value {
            case .count(let count): container[name] = count
            case .integer(let integer): container[name] = integer
            case .real(let real): container[name] = real
            case .text(let text): container[name] = text
            }
        }
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
        summary.id = inserted.rowID
    }
}
