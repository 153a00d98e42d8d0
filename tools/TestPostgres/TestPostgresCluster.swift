import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary directory, the server on
/// a free loopback port with trust authentication, stopped and removed when the test process
/// exits. Uses the real server binaries (PostgreSQL 15 from Debian; `.ci/run` installs them
/// when missing); there is no mock. When running as root the cluster runs as the `postgres`
/// user, since `initdb` refuses root.
///
/// One cluster per test process (`shared()`); each test asks it for a fresh, empty database.
public final class TestPostgresCluster: Sendable {
    /// The error when the cluster cannot be started; its message says what to install or fix.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public let host = "127.0.0.1"
    public let port: Int
    /// The superuser the cluster was created with (trust authentication on loopback).
    public let user = "frostbox"
    /// The cluster's directory (data, log, socket).
    public let directory: String
    /// The server's self-signed TLS certificate (PEM), for clients that verify it.
    public var certificatePath: String { directory + "/server.crt" }
    let binDirectory: String
    let runAsPostgres: Bool

    /// The process's cluster, started on first use.
    public static func shared() throws -> TestPostgresCluster {
        try state.withLock { state in
            if let cluster = state.cluster { return cluster }
            if let error = state.error { throw error }
            do {
                let cluster = try TestPostgresCluster.start()
                state.cluster = cluster
                atexit { TestPostgresCluster.stopShared() }
                return cluster
            } catch {
                state.error = error
                throw error
            }
        }
    }

    private struct State: @unchecked Sendable {
        var cluster: TestPostgresCluster?
        var error: (any Error)?
    }
    private static let state = Mutex(State())

    private static func stopShared() {
        state.withLock { state in
            state.cluster?.stop()
            state.cluster = nil
        }
    }

    private init(port: Int, directory: String, binDirectory: String, runAsPostgres: Bool) {
        self.port = port
        self.directory = directory
        self.binDirectory = binDirectory
        self.runAsPostgres = runAsPostgres
    }

    /// A new, empty database in the cluster; its name.
    public func createDatabase(prefix: String = "test") throws -> String {
        let name = "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
        try run(binDirectory + "/createdb", ["-h", host, "-p", String(port), "-U", user, name], asPostgres: false)
        return name
    }

    /// A `postgres://` URL of `database` (no password: the cluster trusts loopback).
    public func url(database: String) -> String {
        "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// Runs `sql` with `psql` in `database`; its rows, one per line, columns split by `|`.
    public func psql(_ sql: String, database: String) throws -> [[String]] {
        let output = try run(
            binDirectory + "/psql", ["-h", host, "-p", String(port), "-U", user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
            asPostgres: false)
        return output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    // MARK: Starting and stopping

    static func start() throws -> TestPostgresCluster {
        removeAbandonedClusters()
        let bin = try findBinDirectory()
        let asPostgres = geteuid() == 0
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("frostbox-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try String(getpid()).write(toFile: directory + "/owner.pid", atomically: true, encoding: .utf8)
        if asPostgres {
            guard let account = getpwnam("postgres") else {
                throw StartError(description: "running as root, and there is no `postgres` user to run PostgreSQL as (install postgresql)")
            }
            guard chown(directory, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw StartError(description: "cannot hand \(directory) to the postgres user (errno \(errno))")
            }
        }
        let probe = TestPostgresCluster(port: 0, directory: directory, binDirectory: bin, runAsPostgres: asPostgres)
        try probe.run(
            bin + "/initdb",
            ["-D", directory + "/data", "-U", probe.user, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
            asPostgres: asPostgres)
        // TLS on (plain connections still allowed): a self-signed certificate for 127.0.0.1,
        // whose PEM is also the root a verify-full client trusts (`certificatePath`).
        try probe.run(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", directory + "/server.key", "-out", directory + "/server.crt",
            ],
            asPostgres: asPostgres)
        chmod(directory + "/server.key", 0o600)
        chmod(directory + "/server.crt", 0o644)
        // A free port can be taken between asking and binding: a few tries.
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try freePort()
            let cluster = TestPostgresCluster(port: port, directory: directory, binDirectory: bin, runAsPostgres: asPostgres)
            do {
                let options =
                    "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200"
                    + " -c ssl=on -c ssl_cert_file=\(directory)/server.crt -c ssl_key_file=\(directory)/server.key"
                try cluster.run(
                    bin + "/pg_ctl", ["-D", directory + "/data", "-o", options, "-l", directory + "/server.log", "-w", "-t", "60", "start"],
                    asPostgres: asPostgres)
                return cluster
            } catch {
                lastError = error
            }
        }
        throw lastError ?? StartError(description: "PostgreSQL did not start")
    }

    func stop() {
        _ = try? run(binDirectory + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"], asPostgres: runAsPostgres)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Clusters left by test processes that were killed before they could stop theirs.
    static func removeAbandonedClusters() {
        let temporary = FileManager.default.temporaryDirectory.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for name in names where name.hasPrefix("frostbox-pg-") {
            let directory = temporary + "/" + name
            guard let text = try? String(contentsOfFile: directory + "/owner.pid", encoding: .utf8),
                let owner = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            if let bin = try? findBinDirectory() {
                let cluster = TestPostgresCluster(port: 0, directory: directory, binDirectory: bin, runAsPostgres: geteuid() == 0)
                cluster.stop()
            } else {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
    }

    /// `FROSTBOX_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin` (Debian's layout), else `PATH`.
    static func findBinDirectory() throws -> String {
        let manager = FileManager.default
        if let given = ProcessInfo.processInfo.environment["FROSTBOX_PG_BIN"], !given.isEmpty { return given }
        if let versions = try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            let newest = versions.compactMap { Int($0) }.sorted().last
            if let newest, manager.isExecutableFile(atPath: "/usr/lib/postgresql/\(newest)/bin/initdb") {
                return "/usr/lib/postgresql/\(newest)/bin"
            }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where manager.isExecutableFile(atPath: "\(directory)/initdb") {
            return String(directory)
        }
        throw StartError(
            description:
                "PostgreSQL's server programs (initdb, pg_ctl) were not found: install PostgreSQL 15 (`apt-get install postgresql`, as .ci/run does) or set FROSTBOX_PG_BIN"
        )
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket() failed (errno \(errno))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw StartError(description: "bind() failed (errno \(errno))") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw StartError(description: "getsockname() failed (errno \(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program to its end (posix_spawn and waitpid: Foundation's `Process` left
    /// `runuser` unreaped here); its output, or an error with its output when it failed.
    @discardableResult
    func run(_ program: String, _ arguments: [String], asPostgres: Bool) throws -> String {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        // Output goes to a file the postgres user may write, read back after the exit.
        let outputPath = "\(NSTemporaryDirectory())frostbox-pg-run-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil, attributes: [.posixPermissions: 0o666]) else {
            throw StartError(description: "cannot create \(outputPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = ChildProcessLaunch.serialized { posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ) }
        guard spawned == 0 else { throw StartError(description: "cannot run \(argv[0]) (errno \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw StartError(description: "waitpid failed (errno \(errno))") }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)).map { "\nserver log:\n" + $0.suffix(2_000) } ?? ""
            throw StartError(
                description: "\((program as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(output)\(log)")
        }
        return output
    }
}
