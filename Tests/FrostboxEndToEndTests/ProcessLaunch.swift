import Foundation
import TestPostgres

/// Starts child processes one at a time, under the lock every launch of the test process
/// takes (`ChildProcessLaunch`: Foundation's `Process.run()` crashed when another launch ran
/// at the same moment). Only the launch is serialized: the children run side by side.
enum ProcessLaunch {
    static func run(_ process: Process) throws {
        try ChildProcessLaunch.serialized { try process.run() }
    }
}
