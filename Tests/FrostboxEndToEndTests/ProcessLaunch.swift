import Foundation

/// Starts child processes one at a time. Foundation's `Process.run()` on Linux crashed the
/// test process once (a bad pointer in its memcpy while building the child's arguments and
/// environment) while other suites launched processes at the same moment; the end-to-end
/// suites run in parallel, so every launch of theirs goes through this lock. Only the launch
/// is serialized: the children run side by side as before.
enum ProcessLaunch {
    private static let lock = NSLock()

    static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
