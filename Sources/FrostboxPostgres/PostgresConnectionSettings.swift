import Foundation

/// Where and how to reach the PostgreSQL server: parsed from a `postgres://` URL.
///
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require|verify-full]`
/// `[&sslrootcert=/path/ca.pem]` (`postgresql://` too; the parameters as libpq names them). A password in the URL works but is discouraged: give it from a file or
/// the environment instead (see the README); it is never logged either way.
public struct PostgresConnectionSettings: Sendable, Equatable {
    /// How the connection is encrypted, after libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, without checking its certificate; plain otherwise.
        case prefer
        /// TLS or no connection; the certificate is not checked (encryption only).
        case require
        /// TLS, the certificate checked against the system's trusted roots and the host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// PEM file of the certificate authorities `verify-full` trusts (libpq's `sslrootcert`);
    /// nil: the system's trusted roots.
    public var rootCertificatePath: String?

    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer,
        rootCertificatePath: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.rootCertificatePath = rootCertificatePath
    }

    /// Parses a connection URL; `PostgresSettingsError` names what is wrong (never echoing a password).
    public init(url text: String) throws(PostgresSettingsError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw PostgresSettingsError("database.url must look like postgres://user@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresSettingsError("database.url names no host (postgres://user@host:5432/database)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresSettingsError("database.url names no user (postgres://user@host:5432/database)")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw PostgresSettingsError("database.url has port \(port), outside 1...65535") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw PostgresSettingsError("database.url names no database (postgres://user@host:5432/database)")
        }
        var tls = TLSMode.prefer
        var rootCertificatePath: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else {
                    throw PostgresSettingsError("database.url sslrootcert must name a PEM file of certificate authorities")
                }
                rootCertificatePath = value
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw PostgresSettingsError(
                        "database.url sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            default:
                throw PostgresSettingsError("database.url has an unknown parameter \(item.name) (sslmode and sslrootcert are understood)")
            }
        }
        if rootCertificatePath != nil, tls != .verifyFull {
            throw PostgresSettingsError("database.url sslrootcert is used with sslmode=verify-full only")
        }
        self.init(
            host: host, port: port, user: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: path.removingPercentEncoding ?? path, tls: tls, rootCertificatePath: rootCertificatePath)
    }

    /// The URL without its password, for logs and status output.
    public var redacted: String {
        "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }
}

/// A connection setting that cannot be used; the message says which and why.
public struct PostgresSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
