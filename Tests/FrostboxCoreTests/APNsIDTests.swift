import FrostboxCore
import Testing

/// The apns-id of a planned alert is derived from its device and event, so a resend after a
/// crash is the same request without the id being stored per row.
@Suite("apns-id derived from device and event")
struct MessageIDTests {
    let token = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let event = FrostEvent(box: GeoBox(latitudeIndex: 1_203, longitudeIndex: 499), night: LocalDate(year: 2026, month: 11, day: 24), level: .freeze)

    @Test("the value is pinned: a change would give entries already queued another id")
    func pinned() {
        #expect(event.messageID(for: token) == Self.pinned)
    }

    @Test("canonical upper-case UUID text, version 8, RFC 9562 variant")
    func shape() {
        let id = Array(event.messageID(for: token))
        #expect(id.count == 36)
        #expect([8, 13, 18, 23].allSatisfy { id[$0] == "-" })
        #expect(id[14] == "8")
        #expect("89AB".contains(id[19]))
        #expect(id.allSatisfy { $0 == "-" || "0123456789ABCDEF".contains($0) })
    }

    @Test("every part of the key changes the id; the same key gives the same id")
    func distinct() {
        var ids = Set<String>()
        for token in [token, DeviceToken(trusted: "a11ce000000000000000000000000002")] {
            for box in [event.box, GeoBox(latitudeIndex: 1_203, longitudeIndex: 500)] {
                for night in [event.night, event.night.next] {
                    for level in FrostLevel.allCases {
                        ids.insert(FrostEvent(box: box, night: night, level: level).messageID(for: token))
                    }
                }
            }
        }
        #expect(ids.count == 2 * 2 * 2 * FrostLevel.allCases.count)
        #expect(event.messageID(for: token) == FrostEvent(box: event.box, night: event.night, level: event.level).messageID(for: token))
    }

    @Test("100,000 devices in one event: no two share an id")
    func noCollisions() {
        var ids = Set<String>()
        for n in 0..<100_000 {
            let hex = String(n, radix: 16)
            ids.insert(event.messageID(for: DeviceToken(trusted: String(repeating: "0", count: 64 - hex.count) + hex)))
        }
        #expect(ids.count == 100_000)
    }

    static let pinned = "765BADD9-47F5-8C85-A859-0419026B0D20"
}
