import CFrostboxSystem
import Foundation

/// The process's memory as the system sees it. glibc's malloc keeps what a notify run freed in
/// its arenas (several per core), so without a trim the resident size stays at the largest
/// run's peak and steps up with each new peak; `releaseFree()` after each run hands it back.
public enum ProcessMemory {
    /// Hands the allocator's free memory back to the system (glibc `malloc_trim(0)`; nothing
    /// elsewhere).
    public static func releaseFree() {
        _ = frostbox_release_free_memory()
    }

    /// The resident set size in bytes (Linux `/proc/self/statm`), or nil where it cannot be read.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
