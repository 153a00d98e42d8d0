import CFrostboxSystem
import Foundation
import Synchronization

/// Keeps a bulk import's unwritten (dirty) page cache small, so that the service's own
/// durable writes — an fsync of the device database's WAL per acknowledged request — never
/// queue behind gigabytes of import data the kernel decided to write back at once.
///
/// A background thread asks the kernel every `interval` (10 ms) to write back, and waits for, the
/// dirty pages of the import's files (the places file's WAL and the run files), with
/// `sync_file_range(2)`: no journal commit, no metadata, only data already written by the
/// import. The thread is in the idle I/O class, so the writes it starts yield to the
/// service's fsyncs in the block layer. The import's own threads never wait for it.
final class WritebackPacer: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts pacing the files `paths()` names (asked again on every round: run files come
    /// and go). Never a database file SQLite has open in this process: the pacer closes
    /// its descriptors, and a close drops the process's POSIX locks on the file.
    init(interval: Duration = .milliseconds(10), paths: @escaping @Sendable () -> [String]) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            _ = frostbox_ioprio_set_idle()
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
                    if frostbox_write_back(fd) != 0 {
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
}
