import Foundation
import Logging
import Synchronization

/// How the service writes its log lines (`log.format`, env `FROSTBOX_LOG_FORMAT`): swift-log's
/// text lines, or one JSON object per line for a log shipper (Loki, Elasticsearch, journald).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json

    private static let bootstrapped = Atomic<Bool>(false)

    /// Routes every logger made from now on to standard error in this format. The first call
    /// wins (the logging system is set up once per process); later calls change nothing.
    public func bootstrap() {
        guard Self.bootstrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        switch self {
        case .text:
            LoggingSystem.bootstrap(StreamLogHandler.standardError)
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, write: JSONLogHandler.standardError) }
        }
    }
}

/// A log handler writing one JSON object per line: `time` (RFC 3339 UTC, milliseconds),
/// `level`, `label`, `message`, `source` (the module), then each metadata key as a field of its
/// own (a key that would shadow one of these is written as `metadata.KEY`). Values are the
/// ones the text format prints: tokens are redacted where they are logged, so both formats
/// show the same shortened token.
public struct JSONLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let write: @Sendable (String) -> Void

    /// `write` takes each line, newline included.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// Writes a line to standard error in one call, so lines of concurrent loggers do not mix.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static let reserved: Set<String> = ["time", "level", "label", "message", "source"]
    /// `2026-11-28T09:00:02.114Z`.
    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        var line = "{"
        Self.member(&line, "time", .string(Self.timeFormat.format(Date())), first: true)
        Self.member(&line, "level", .string(event.level.rawValue))
        Self.member(&line, "label", .string(label))
        Self.member(&line, "message", .string(event.message.description))
        Self.member(&line, "source", .string(event.source))
        for key in merged.keys.sorted() {
            Self.member(&line, Self.reserved.contains(key) ? "metadata.\(key)" : key, merged[key]!)
        }
        line += "}\n"
        write(line)
    }

    private static func member(_ line: inout String, _ key: String, _ value: Logger.Metadata.Value, first: Bool = false) {
        if !first { line += "," }
        quote(key, into: &line)
        line += ":"
        json(value, into: &line)
    }

    private static func json(_ value: Logger.Metadata.Value, into line: inout String) {
        switch value {
        case .string(let text): quote(text, into: &line)
        case .stringConvertible(let value): quote(value.description, into: &line)
        case .array(let values):
            line += "["
            for (index, value) in values.enumerated() {
                if index > 0 { line += "," }
                json(value, into: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                member(&line, key, values[key]!, first: index == 0)
            }
            line += "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    static func quote(_ text: String, into line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                line += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
