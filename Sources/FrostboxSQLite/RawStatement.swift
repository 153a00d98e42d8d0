import GRDB
import GRDBSQLite

/// A cached GRDB statement driven through the SQLite C API: binds and reads columns without
/// building `StatementArguments` or `Row` values, which dominate the cost of bulk imports
/// (tens of millions of rows) and of the place search's inner loops. Only for statements
/// of the connection that runs the current GRDB access, and only within it.
struct RawStatement {
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(handle)
    }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String) {
        var value = value
        _ = value.withUTF8 { bytes in
            // An empty buffer may have no address; SQLite would read a NULL pointer as SQL NULL.
            if let base = bytes.baseAddress {
                sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
            } else {
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
    }

    /// Binds `count` UTF-8 bytes at `bytes` without copying them: they must stay valid and
    /// unchanged until the statement has run (`execute()` or the last `next()`).
    func bindText(_ index: Int32, bytes: UnsafeRawPointer, count: Int) {
        sqlite3_bind_text(handle, index, bytes.assumingMemoryBound(to: CChar.self), Int32(count), nil)
    }

    /// Runs a statement that returns no rows and resets it for the next use.
    func execute() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Steps to the next row: true when there is one; resets the statement after the last.
    func next() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
        return false
    }

    /// Resets a statement whose rows were not all read.
    func reset() { sqlite3_reset(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// The UTF-8 bytes of a text column, valid until the next step or reset.
    func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // Text first, then its length (the order SQLite documents for a stable pointer).
        guard let text = sqlite3_column_text(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }
    /// Whether a column of the current row is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// A text column as a string ("" for NULL).
    func text(_ column: Int32) -> String {
        let bytes = textBytes(column)
        return bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self)
    }
    /// A text column as a string, nil for NULL.
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    /// An integer column, nil for NULL.
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    /// A real column, nil for NULL.
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    /// Length in bytes of a text column.
    func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }

    private func error(_ code: Int32) -> DatabaseError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "statement failed"
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }
}
