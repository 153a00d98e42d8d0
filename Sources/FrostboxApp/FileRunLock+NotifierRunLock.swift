import FrostboxNotifier
import FrostboxSQLite

/// Notify runs of `serve` and `notify --once` on one database exclude each other through the
/// lock file beside it.
extension FileRunLock: NotifierRunLock {}
