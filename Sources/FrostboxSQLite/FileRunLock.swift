import Foundation
import Synchronization

/// An exclusive, non-blocking `flock` on a file beside the database, so that work of
/// different processes on one database never overlaps (notify runs, place imports). The
/// kernel drops the lock when the process dies, kill -9 included, so a restart never waits
/// for a dead holder.
public final class FileRunLock: Sendable {
    /// The lock file.
    public let path: String
    /// The open descriptor while the lock is held (-1 otherwise).
    private let descriptor = Mutex<Int32>(-1)

    public init(path: String) {
        self.path = path
    }

    /// Takes the lock when no one (no other process, and not this object already) holds it;
    /// false otherwise. Never blocks.
    public func tryLock() -> Bool {
        descriptor.withLock { fd in
            guard fd < 0 else { return false }
            let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard opened >= 0 else { return false }
            guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
                close(opened)
                return false
            }
            fd = opened
            return true
        }
    }

    /// Releases a lock taken by `tryLock` (nothing when not held).
    public func unlock() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }
}
