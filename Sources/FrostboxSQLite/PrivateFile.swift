#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files only the service's user may read: a database holds device tokens and exact
/// coordinates, so it is created with mode 0600 whatever the process's umask, before SQLite
/// opens it. SQLite gives its `-wal` and `-shm` files the database file's mode.
enum PrivateFile {
    /// Creates an empty file at `path` with mode 0600 unless something is there already (an
    /// existing file keeps the mode its owner gave it). Failures are left to SQLite's open,
    /// which reports them in its own words.
    static func createIfMissing(_ path: String) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }
}
