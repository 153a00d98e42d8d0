import FrostboxDoubles
import Testing

@testable import FrostboxWebPush

/// The TTL a push service answers (RFC 8030 §5.2), against the one asked.
@Suite("Web Push TTL watch")
struct WebPushTTLWatchTests {
    @Test("a kept TTL shorter than asked (beyond a minute's slack) is a cut, logged once per origin and kept value")
    func cuts() {
        let logs = RecordingLogHandler.Store()
        let watch = WebPushTTLWatch(logger: logs.logger())
        let origin = "https://push.example.org"
        #expect(!watch.note(origin: origin, asked: 3_600, answered: nil), "no TTL answered")
        #expect(!watch.note(origin: origin, asked: 3_600, answered: "soon"), "not a number")
        #expect(!watch.note(origin: origin, asked: 3_600, answered: "3600"), "kept as asked")
        #expect(!watch.note(origin: origin, asked: 3_600, answered: "3550"), "within the slack")
        #expect(watch.note(origin: origin, asked: 3_600, answered: "600"))
        #expect(watch.note(origin: origin, asked: 3_500, answered: "600"))
        #expect(watch.note(origin: origin, asked: 3_600, answered: "300"))
        #expect(watch.note(origin: "https://other.example.org", asked: 3_600, answered: "600"))
        #expect(watch.cuts == [origin: 300, "https://other.example.org": 600])
        #expect(logs.all.map { $0.metadata["ttl-kept"] ?? "" } == ["600", "300", "600"], "one line per origin and kept value")
    }
}
