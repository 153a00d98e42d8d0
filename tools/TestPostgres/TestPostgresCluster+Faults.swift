import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Database trouble on demand, for the fault tests: a cluster of the test's own (the shared one
/// serves every other suite of the process), made read-only, stopped, started and crashed.
extension TestPostgresCluster {
    /// A new cluster for one test, on a free port it keeps across restarts; `remove()` ends it.
    public static func startPrivate() throws -> TestPostgresCluster {
        // One at a time: each picks a free port and runs initdb, and two at once raced for a
        // port and for the CPU.
        try privateStarts.withLock { _ in try startPrivateNow() }
    }

    private static let privateStarts = Mutex(())

    private static func startPrivateNow() throws -> TestPostgresCluster {
        let cluster = try start()
        // `start` gives the port and addresses on the command line; kept in postgresql.auto.conf
        // as well, a plain `pg_ctl start` brings the server back where the clients look for it.
        for (name, value) in [
            ("port", String(cluster.port)), ("listen_addresses", "127.0.0.1"),
            ("unix_socket_directories", cluster.directory), ("max_connections", "200"),
        ] {
            _ = try cluster.psql("ALTER SYSTEM SET \(name) = '\(value)'", database: "postgres")
        }
        return cluster
    }

    /// Makes every new transaction read-only (as a standby or a read-only failover target would
    /// answer writes: SQLSTATE 25006), or writable again; takes effect on open sessions at once.
    public func setReadOnly(_ readOnly: Bool) throws {
        _ = try psql("ALTER SYSTEM SET default_transaction_read_only = \(readOnly ? "on" : "off")", database: "postgres")
        _ = try psql("SELECT pg_reload_conf()", database: "postgres")
    }

    /// Stops the server (`fast`: sessions are ended with 57P01, as on a restart).
    public func stopServer() throws {
        try run(binDirectory + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"], asPostgres: runAsPostgres)
    }

    /// Starts the stopped or crashed server again (crash recovery first when it was killed).
    public func startServer() throws {
        var lastError: (any Error)?
        // After a kill -9 the old backends can hold the shared memory a moment longer: a few tries.
        for _ in 0..<20 {
            do {
                try run(
                    binDirectory + "/pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "start"],
                    asPostgres: runAsPostgres)
                return
            } catch {
                lastError = error
                usleep(250_000)
            }
        }
        throw lastError ?? StartError(description: "PostgreSQL did not start again")
    }

    /// `kill -9` of the postmaster: the server dies without a shutdown, its backends follow.
    public func killPostmaster() throws {
        let pidFile = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        guard let line = pidFile.split(separator: "\n").first, let pid = pid_t(line) else {
            throw StartError(description: "no postmaster.pid in \(directory)/data")
        }
        guard kill(pid, SIGKILL) == 0 else { throw StartError(description: "kill -9 \(pid) failed (errno \(errno))") }
        while kill(pid, 0) == 0 { usleep(20_000) }
    }

    /// Stops (`SIGSTOP`) or continues (`SIGCONT`) the postmaster and every backend: the server
    /// then takes connections (the kernel completes them) and answers nothing, as a proxy with
    /// no primary behind it or a host cut off without a reset would.
    public func freezeServer(_ frozen: Bool) throws {
        let pidFile = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        guard let line = pidFile.split(separator: "\n").first, let postmaster = pid_t(line) else {
            throw StartError(description: "no postmaster.pid in \(directory)/data")
        }
        let signal = frozen ? SIGSTOP : SIGCONT
        // The backends first when stopping (none is left to notice the postmaster stopped),
        // the postmaster first when continuing.
        if !frozen { kill(postmaster, signal) }
        for child in Self.children(of: postmaster) { kill(child, signal) }
        if frozen { kill(postmaster, signal) }
    }

    /// The processes whose parent is `parent`, from /proc.
    static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { return nil }
            // "pid (comm) state ppid …": comm may hold spaces, so read after its closing parenthesis.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == parent else { return nil }
            return pid
        }
    }

    /// Stops the server at once and deletes the cluster.
    public func remove() {
        stop()
    }
}

extension TestPostgresCluster {
    /// Runs a blocking cluster operation (initdb, pg_ctl, psql: seconds each on a busy machine)
    /// on a thread of its own. On the test process's cooperative pool — two threads here — two
    /// such calls at once stalled every other suite's async work, in-process servers included.
    public static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}

extension TestPostgresCluster {
    /// `shared()` from async code, on a thread of its own: the first call runs initdb and starts
    /// the server (tens of seconds on a loaded machine), and every suite's first test waits for
    /// it; on the cooperative pool those waits stalled the whole test process meanwhile.
    public static func sharedOffThePool() async throws -> TestPostgresCluster {
        try await offThePool { try shared() }
    }

    /// `createDatabase(prefix:)` from async code, on a thread of its own (it runs `psql`).
    public func createDatabaseOffThePool(prefix: String = "test") async throws -> String {
        try await Self.offThePool { try self.createDatabase(prefix: prefix) }
    }

    /// `psql(_:database:)` from async code, on a thread of its own: a test's checks of what it
    /// wrote, each tens of milliseconds of a blocked thread otherwise.
    public func query(_ sql: String, database: String) async throws -> [[String]] {
        try await Self.offThePool { try self.psql(sql, database: database) }
    }
}
