import Foundation

/// A named thread that runs one throwing body, for the blocking work of a bulk import
/// (SQLite writes, sorting, merging) that must not occupy the async executor. `join()`
/// waits for the body and rethrows what it threw; it may be called more than once.
public final class WorkerThread: @unchecked Sendable {
    // @unchecked Sendable: `failure` is written by the thread before it signals `done`, and
    // read only after `join()` has waited for that signal.
    private let done = DispatchSemaphore(value: 0)
    private var failure: (any Error)?

    /// Starts `body` on a new thread named `name`.
    public init(name: String, _ body: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            defer { done.signal() }
            do {
                try body()
            } catch {
                failure = error
            }
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the body to end; rethrows its error.
    public func join() throws {
        done.wait()
        done.signal()
        if let failure { throw failure }
    }
}
