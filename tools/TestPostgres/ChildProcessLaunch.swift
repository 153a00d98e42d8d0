import Foundation

/// One lock for every child process a test starts, whoever starts it: Foundation's
/// `Process.run()` on Linux crashed the test process (a bad pointer in its memcpy while it
/// built the child's arguments and environment) when another launch — a `Process`, or this
/// library's own `posix_spawn` of initdb, pg_ctl and psql — happened at the same moment. Only
/// the launch is serialized: the children run side by side.
public enum ChildProcessLaunch {
    private static let lock = NSLock()

    /// Runs `launch` (a `Process.run()` or a `posix_spawn`) while no other launch runs.
    public static func serialized<T>(_ launch: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try launch()
    }
}
