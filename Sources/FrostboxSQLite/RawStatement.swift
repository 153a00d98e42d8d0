import GRDB
import GRDBSQLite

/// A prepared insert driven through the SQLite C API: binds without building
/// `StatementArguments`, which dominates the cost of bulk imports (tens of millions of
/// rows). Only for GRDB statements of the same connection, used on the writer queue.
struct RawInsert {
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            // An empty buffer may have no address; SQLite would read a NULL pointer as SQL NULL.
            if let base = bytes.baseAddress {
                sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
            } else {
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
    }

    /// Runs the insert and resets the statement for the next row.
    func step() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "insert failed"
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
    }
}
