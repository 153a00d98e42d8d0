import Foundation
import FrostboxCore
import Logging
import Synchronization
import Testing

@testable import FrostboxApp

/// `log.format: json`: one JSON object per line, metadata as fields, tokens as the text
/// format shows them.
@Suite("Log format")
struct LogFormatTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func logger(label: String = "frostbox") -> Logger {
            Logger(label: label) { label in JSONLogHandler(label: label) { line in self.lines.withLock { $0.append(line) } } }
        }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("a line is one JSON object with time, level, label, message, source and each metadata key as a field")
    func oneObjectPerLine() throws {
        let lines = Lines()
        lines.logger().warning(
            "notify run degraded: \"quoted\"\nsecond line",
            metadata: ["summary": "run 4 degraded", "message": "shadowed", "nested": ["a": "1"], "list": ["x", "y"]])
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false, "one line per entry")
        let object = try Self.object(line)
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "frostbox")
        #expect(object["message"] as? String == "notify run degraded: \"quoted\"\nsecond line")
        #expect(object["source"] as? String == "FrostboxAppTests")
        #expect(object["summary"] as? String == "run 4 degraded")
        #expect(object["metadata.message"] as? String == "shadowed")
        #expect(object["nested"] as? [String: String] == ["a": "1"])
        #expect(object["list"] as? [String] == ["x", "y"])
        let time = try #require(object["time"] as? String)
        #expect(time.hasSuffix("Z") && time.contains("T") && time.contains("."), "\(time)")
    }

    @Test("a push logged as JSON carries the token shortened exactly as the text format does")
    func tokensRedacted() async throws {
        let lines = Lines()
        let token = try DeviceToken(String(repeating: "ab", count: 32))
        let push = PushNotification(token: token, messageID: "m-1", content: AlertContent(title: "Hard frost warning", body: "Hard frost tonight"))
        _ = await LogOnlyPushSender(logger: lines.logger()).send(push)
        let line = try #require(lines.all.first)
        #expect(try Self.object(line)["token"] as? String == token.redacted)
        #expect(token.redacted == "ababab…abab")
        #expect(!line.contains(token.value))
    }

    @Test("log.format reads text or json, from the file, the environment or --set; anything else is refused")
    func setting() async throws {
        #expect(try await ConfigLoaderTests.load().logFormat == .text)
        #expect(try await ConfigLoaderTests.load(environment: ["FROSTBOX_LOG_FORMAT": "json"]).logFormat == .json)
        #expect(try await ConfigLoaderTests.load(overrides: ["log.format": "JSON"]).logFormat == .json)
        let error = await #expect(throws: ConfigurationError.self) { try await ConfigLoaderTests.load(overrides: ["log.format": "xml"]) }
        #expect(error?.key == "log.format")
    }
}
