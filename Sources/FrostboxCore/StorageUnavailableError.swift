/// The database cannot take the request now — it is down, read-only, full, out of connections,
/// or no connection came free in time — so the request may be retried later. Each database
/// adapter maps its own failures to it; the HTTP layer answers it with a 503
/// `storage_unavailable` and `Retry-After`. A write that failed so may or may not have been
/// stored (the server can commit and then go away before it answers).
public struct StorageUnavailableError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the database is unavailable.
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        /// The server refuses writes (a standby, a read-only setting).
        case readOnly = "read-only"
        /// The server is down, shutting down, starting up, or the connection to it broke.
        case down
        /// The server's disk is full.
        case diskFull = "disk full"
        /// The server has no connection slot left.
        case tooManyConnections = "too many connections"
        /// No pooled connection came free within the wait for one.
        case noConnection = "no connection"

        /// Whether the condition concerns writes only (reads still work meanwhile).
        public var refusesWritesOnly: Bool { self == .readOnly || self == .diskFull }
    }

    public var reason: Reason
    /// The database's own code for it (a PostgreSQL SQLSTATE, an SQLite result code), if any.
    public var code: String?
    /// The database's message (never row values).
    public var message: String

    public init(_ reason: Reason, code: String? = nil, message: String) {
        self.reason = reason
        self.code = code
        self.message = message
    }

    public var description: String {
        "storage unavailable (\(reason.rawValue)\(code.map { ", \($0)" } ?? "")): \(message)"
    }
}
