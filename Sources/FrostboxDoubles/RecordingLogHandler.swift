import Logging
import Synchronization

/// A swift-log handler that keeps every line in memory, so tests can assert what was (and was
/// not) logged: e.g. that no device token, JWT or key ever appears whole.
public struct RecordingLogHandler: LogHandler {
    /// One captured line.
    public struct Entry: Sendable, CustomStringConvertible {
        public let label: String
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
        /// The whole line as a text handler would print it (message and every metadata value).
        public var description: String {
            let values = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(level) [\(label)] \(message) \(values)"
        }
    }

    /// The shared store the handlers of one test write to.
    public final class Store: Sendable {
        private let entries = Mutex<[Entry]>([])

        public init() {}

        /// Every line captured so far, in order.
        public var all: [Entry] { entries.withLock { $0 } }

        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

        /// A logger at `level` writing to this store.
        public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
            var logger = Logger(label: label) { label in RecordingLogHandler(label: label, store: self) }
            logger.logLevel = level
            return logger
        }
    }

    let label: String
    let store: Store
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(label: String, store: Store) {
        self.label = label
        self.store = store
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        store.append(Entry(label: label, level: event.level, message: "\(event.message)", metadata: merged))
    }
}
