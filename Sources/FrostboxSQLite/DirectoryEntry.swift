import Foundation

/// What a name in a generations directory is, looked at without following links (`lstat`):
/// generations are plain files, so a link or a directory where one is expected is refused,
/// and nothing in the directory is ever removed through a link or recursively.
public enum DirectoryEntry: Sendable, Equatable {
    /// A regular file of this many bytes.
    case regular(size: Int64)
    /// A symbolic link (never followed).
    case link
    /// A directory, device, socket or pipe.
    case other
    /// Nothing of that name.
    case missing

    /// The entry at `path`, the last component not followed.
    public static func kind(at path: String) -> DirectoryEntry {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .missing }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular(size: Int64(status.st_size))
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// Removes the entry at `path` only if it is a regular file: `unlink(2)`, which never
    /// recurses; a link, a directory or anything else is left alone. True when removed.
    @discardableResult
    public static func removeRegularFile(at path: String) -> Bool {
        guard case .regular = kind(at: path) else { return false }
        return unlink(path) == 0
    }
}
