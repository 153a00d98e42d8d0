import FrostboxCore
import FrostboxPostgres
import Logging
import TestPostgres
import Testing

/// What only the PostgreSQL adapter has: its connection URL, migrations shared by several
/// instances starting at once, and TLS. (The ports' behaviour is
/// proven by the contract suites, against SQLite and PostgreSQL alike.)
@Suite("PostgreSQL adapter", .backgroundWorkScoped)
struct PostgresDatabaseTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a connection URL gives host, port, user, database, password and sslmode; defaults 5432 and prefer")
    func parsesURLs() throws {
        let full = try PostgresConnectionSettings(url: "postgresql://app%40x:s%3Acret@db.example:6543/frost?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(
            full
                == PostgresConnectionSettings(
                    host: "db.example", port: 6543, user: "app@x", password: "s:cret", database: "frost", tls: .verifyFull,
                    rootCertificatePath: "/etc/ca.pem"))
        let plain = try PostgresConnectionSettings(url: "postgres://frostbox@localhost/frostbox")
        #expect(plain.port == 5432)
        #expect(plain.tls == .prefer)
        #expect(plain.password == nil)
        #expect(!full.redacted.contains("s:cret") && !full.redacted.contains("cret"))
        #expect(full.redacted == "postgres://app@x:***@db.example:6543/frost?sslmode=verify-full")
    }

    @Test(
        "a URL that names no host, user or database, another scheme, a bad sslmode or an unknown parameter is refused by name",
        arguments: [
            ("mysql://u@h/db", "must look like"), ("postgres://h/db", "no user"), ("postgres://u@h", "no database"),
            ("postgres://u@h/db?sslmode=maybe", "sslmode must be one of"), ("postgres://u@h/db?pool=3", "unknown parameter pool"),
            ("postgres://u@h:99999/db", "outside 1...65535"), ("postgres://u:secret@/db", "no host"),
            ("postgres://u@h/db?sslrootcert=/ca.pem", "verify-full only"), ("postgres://u@h/db?sslmode=verify-full&sslrootcert=", "PEM file"),
        ])
    func refusesBadURLs(_ url: String, _ message: String) {
        #expect {
            try PostgresConnectionSettings(url: url)
        } throws: { error in
            let text = (error as? PostgresSettingsError)?.message ?? ""
            return text.contains(message) && !text.contains("secret")
        }
    }

    @Test("four instances opening one new database at once migrate it once, and all of them work", .requiresPostgres)
    func concurrentMigrations() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let name = try await cluster.createDatabaseOffThePool(prefix: "migrate")
        let settings = PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: name, tls: .disable)
        let databases = try await withThrowingTaskGroup(of: PostgresDatabase.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresDatabase.openedInTestScope(settings: settings, maximumConnections: 2, logger: Self.quiet) } }
            var opened: [PostgresDatabase] = []
            for try await database in group { opened.append(database) }
            return opened
        }
        #expect(databases.count == 4)
        let applied = try await cluster.query("SELECT name FROM schema_migration ORDER BY name", database: name).map { $0[0] }
        #expect(applied == PostgresDatabase.migrationNames.sorted(), "each migration once")
        for database in databases { #expect(try await database.isMigrated()) }
        // Each instance writes; all see every write.
        let token = DeviceToken(trusted: "0123456789abcdef0123456789abcdef")
        for (index, database) in databases.enumerated() {
            _ = try await PostgresSubscriptionStore(database: database).register(DeviceRegistration(token: token), at: Int64(index))
        }
        #expect(try await PostgresSubscriptionStore(database: databases[0]).device(token)?.registeredAt == 3)
    }

    @Test("TLS: require encrypts without checking; verify-full accepts the server's certificate with sslrootcert and refuses it without", .requiresPostgres)
    func tls() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let name = try await cluster.createDatabaseOffThePool(prefix: "tls")
        func settings(_ query: String) throws -> PostgresConnectionSettings {
            try PostgresConnectionSettings(url: "postgres://\(cluster.user)@\(cluster.host):\(cluster.port)/\(name)?\(query)")
        }
        let required = try await PostgresDatabase.openedInTestScope(settings: try settings("sslmode=require"), maximumConnections: 2, logger: Self.quiet)
        #expect(try await required.connectionIsEncrypted())
        let verified = try await PostgresDatabase.openedInTestScope(
            settings: try settings("sslmode=verify-full&sslrootcert=\(cluster.certificatePath)"), maximumConnections: 2, logger: Self.quiet)
        #expect(try await verified.isMigrated())
        await #expect(throws: (any Error).self) {
            _ = try await PostgresDatabase.openedInTestScope(settings: try settings("sslmode=verify-full"), maximumConnections: 2, logger: Self.quiet)
        }
        let plain = try await PostgresDatabase.openedInTestScope(settings: try settings("sslmode=disable"), maximumConnections: 2, logger: Self.quiet)
        #expect(try await plain.connectionIsEncrypted() == false)
    }

    @Test("opening a database the server does not have fails with a clear error", .requiresPostgres)
    func missingDatabase() async throws {
        let cluster = try await TestPostgresCluster.sharedOffThePool()
        let settings = PostgresConnectionSettings(host: cluster.host, port: cluster.port, user: cluster.user, database: "no_such_database", tls: .disable)
        await #expect {
            _ = try await PostgresDatabase.openedInTestScope(settings: settings, logger: Self.quiet)
        } throws: { error in
            "\(error)".contains("database \"no_such_database\" does not exist")
        }
    }
}

extension PostgresDatabase {
    /// A database opened for a test: its pool runs in the test's scope (the test carries
    /// `.backgroundWorkScoped`), stopped when the test ends, and has a connection ready. The
    /// wait for a connection is generous by default: on a loaded machine the statement's task
    /// can wait longer than 1 s for a thread; tests of that bound give their own.
    static func openedInTestScope(
        settings: PostgresConnectionSettings, maximumConnections: Int = 20, connectionWait: Duration = .seconds(5),
        logger: Logger = PostgresDatabaseTests.quiet
    ) async throws -> PostgresDatabase {
        let database = try await PostgresDatabase(
            settings: settings, maximumConnections: maximumConnections, connectionWait: connectionWait, logger: logger)
        try BackgroundWorkScope.run { try? await database.run() }
        try await database.warmUp(within: .seconds(60))
        return database
    }
}
