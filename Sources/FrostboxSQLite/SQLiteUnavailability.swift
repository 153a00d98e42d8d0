import FrostboxCore
import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which SQLite failures mean "the database cannot take writes now" (`StorageUnavailableError`,
/// answered 503 and retried by the client) rather than a fault of the request or of Frostbox:
/// a full disk or file-size limit, a read-only file or file system, a file that cannot be
/// opened or written.
public enum SQLiteUnavailability {
    /// `error` as a `StorageUnavailableError`, or nil when it is something else. `systemErrno`
    /// is the operating system's error behind it (`sqlite3_system_errno`), 0 when unknown;
    /// `path` names the file in the message.
    public static func classify(_ error: any Error, systemErrno: Int32 = 0, path: String? = nil) -> StorageUnavailableError? {
        if let error = error as? StorageUnavailableError { return error }
        guard let error = error as? DatabaseError else { return nil }
        let extended = error.extendedResultCode
        let system = systemErrno == 0 ? "" : ": \(String(cString: strerror(systemErrno))) (errno \(systemErrno))"
        let file = path.map { " (\($0))" } ?? ""
        func unavailable(_ reason: StorageUnavailableError.Reason, _ what: String) -> StorageUnavailableError {
            StorageUnavailableError(reason, code: "SQLite \(extended.rawValue)", message: "\(what)\(file)\(system)")
        }
        switch error.resultCode {
        case .SQLITE_FULL:
            return unavailable(.diskFull, "the database or its disk is full")
        case .SQLITE_IOERR:
            guard extended != .SQLITE_IOERR_NOMEM else { return nil }
            if spaceErrors.contains(systemErrno) { return unavailable(.diskFull, "the disk is full or the file may not grow") }
            if readOnlyErrors.contains(systemErrno) { return unavailable(.readOnly, "the database file may not be written") }
            return unavailable(.down, "the database file cannot be read or written (disk I/O error)")
        case .SQLITE_READONLY, .SQLITE_PERM:
            return unavailable(.readOnly, "the database file may not be written")
        case .SQLITE_CANTOPEN:
            if spaceErrors.contains(systemErrno) { return unavailable(.diskFull, "the disk is full: a database file cannot be created") }
            if readOnlyErrors.contains(systemErrno) { return unavailable(.readOnly, "a database file may not be created or written") }
            return unavailable(.down, "a database file cannot be opened")
        default:
            return nil
        }
    }

    /// No space: the disk is full (ENOSPC), a quota is used up (EDQUOT), or the file may not
    /// grow (EFBIG, a file-size limit).
    static let spaceErrors: Set<Int32> = [ENOSPC, EDQUOT, EFBIG]
    /// A read-only file system, or no permission to write.
    static let readOnlyErrors: Set<Int32> = [EROFS, EACCES, EPERM]

    /// The operating system's error behind the connection's last failed call, 0 if none.
    static func systemErrno(_ db: Database) -> Int32 {
        guard let connection = db.sqliteConnection else { return 0 }
        return sqlite3_system_errno(connection)
    }
}
