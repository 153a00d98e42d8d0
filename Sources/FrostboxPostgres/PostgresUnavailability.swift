import FrostboxCore
import NIOCore
import NIOPosix
import PostgresNIO
import _ConnectionPoolModule

/// Which PostgreSQL failures mean "the database cannot take this now" (`StorageUnavailableError`,
/// answered 503 and retried by the client) rather than a fault of the request or of Frostbox.
enum PostgresUnavailability {
    /// `error` as a `StorageUnavailableError`, or nil when it is something else.
    static func classify(_ error: any Error) -> StorageUnavailableError? {
        if let error = error as? StorageUnavailableError { return error }
        if let error = error as? PSQLError { return classify(error) }
        if let error = error as? ConnectionPoolError, error == .connectionCreationCircuitBreakerTripped {
            return StorageUnavailableError(.down, message: "no connection to the server could be made for a while (the pool's circuit breaker is open)")
        }
        // The pool was stopped under a waiting statement: replaced after an outage (see
        // `PoolWatch`), or the process is stopping.
        if let error = error as? ConnectionPoolError, error == .poolShutdown {
            return StorageUnavailableError(.noConnection, message: "the connection pool was stopped while the statement waited for a connection")
        }
        if let error = error as? PostgresTransactionError {
            return (error.closureError ?? error.beginError ?? error.commitError).flatMap(classify)
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            return StorageUnavailableError(.down, message: "cannot reach the server: \(error)")
        }
        return nil
    }

    static func classify(_ error: PSQLError) -> StorageUnavailableError? {
        switch error.code {
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return nil }
            let message = error.serverInfo?[.message] ?? "(no message)"
            guard let reason = reason(sqlState: state) else { return nil }
            return StorageUnavailableError(reason, code: state, message: message)
        // clientClosedConnection: the pool closed the connection under the statement (it broke).
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            // The server's last word before the connection closed (57P01 at a shutdown, 25006 …)
            // is the reason the log and the 503 give: its SQLSTATE and message.
            if let last = error.underlying as? PSQLError, let state = last.serverInfo?[.sqlState] {
                let message = last.serverInfo?[.message] ?? "(no message)"
                return StorageUnavailableError(
                    reason(sqlState: state) ?? .down, code: state, message: "the connection to the server closed (\(error.code)): \(message)")
            }
            let underlying = error.underlying.map { ": \(describe($0))" } ?? ""
            return StorageUnavailableError(.down, message: "the connection to the server failed (\(error.code))\(underlying)")
        case .poolClosed:
            return StorageUnavailableError(.down, message: "the connection pool is shut down")
        default:
            return nil
        }
    }

    /// A driver error as a log may show it. postgres-nio's `PSQLError` describes itself with a
    /// generic sentence (its debug description holds the query and the server's detail, which
    /// can quote row values): its code, and the server's SQLSTATE and message when it sent one.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        let underlying = error.underlying.map { " (\(describe($0)))" } ?? ""
        guard let info = error.serverInfo, let state = info[.sqlState] else { return "\(error.code)\(underlying)" }
        return "\(error.code) \(state): \(info[.message] ?? "(no message)")\(underlying)"
    }

    /// The condition a SQLSTATE names, for the states that say the server cannot take work now.
    static func reason(sqlState: String) -> StorageUnavailableError.Reason? {
        switch sqlState {
        case "25006": .readOnly  // read_only_sql_transaction: a standby, default_transaction_read_only
        case "53100": .diskFull  // disk_full
        case "53300": .tooManyConnections  // too_many_connections
        // admin_shutdown, crash_shutdown, cannot_connect_now (starting up, shutting down, recovery)
        case "57P01", "57P02", "57P03": .down
        case "08000", "08003", "08006", "08001", "08004": .down  // connection exceptions
        default: nil
        }
    }
}
