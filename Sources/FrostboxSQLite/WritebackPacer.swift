import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a bulk import's unwritten (dirty) page cache small, so that the service's own
/// durable writes — an fsync of the device database's WAL per acknowledged request — never
/// queue behind gigabytes of import data the kernel decided to write back at once.
///
/// A background thread asks the kernel every `interval` to write back, and waits for, the
/// dirty pages of the import's files (the places file, its WAL, the run files), with
/// `sync_file_range(2)`: no journal commit, no metadata, only data already written by the
/// import. The import's own threads never wait for it. Where `sync_file_range` is missing,
/// it does nothing.
final class WritebackPacer: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts pacing the files `paths()` names (asked again on every round: run files come
    /// and go).
    init(interval: Duration = .milliseconds(50), paths: @escaping @Sendable () -> [String]) {
        guard let syncRange = Self.syncFileRange else {
            finished.signal()
            return
        }
        let thread = Thread { [self] in
            defer { finished.signal() }
            var descriptors: [String: Int32] = [:]
            defer { for fd in descriptors.values { close(fd) } }
            while !stopping.load(ordering: .relaxed) {
                for path in paths() {
                    var fd = descriptors[path] ?? -1
                    if fd < 0 {
                        fd = open(path, O_RDONLY | O_CLOEXEC)
                        guard fd >= 0 else { continue }
                        descriptors[path] = fd
                    }
                    // WAIT_BEFORE | WRITE | WAIT_AFTER: write back what is dirty now and wait.
                    if syncRange(fd, 0, 0, 7) != 0 {
                        close(fd)
                        descriptors[path] = nil
                    }
                }
                // Files that are gone (run files after their merge) are closed.
                for (path, fd) in descriptors where access(path, F_OK) != 0 {
                    close(fd)
                    descriptors[path] = nil
                }
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            }
        }
        thread.name = "frostbox-import-pacer"
        thread.start()
    }

    /// Stops the thread and waits for it.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        finished.signal()
    }

    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// glibc's `sync_file_range`, looked up at run time (Swift's Glibc module does not
    /// declare it).
    static let syncFileRange: SyncFileRange? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
    }()
}
