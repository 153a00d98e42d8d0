import Foundation
import FrostboxCore
import FrostboxStorageFormats
import Testing

@testable import FrostboxSQLite

/// The outbox writes payload JSON by hand for speed; its key names and their order must be
/// the ones `JSONEncoder` writes from the payload types' CodingKeys.
@Suite("Outbox payload JSON keys")
struct OutboxPayloadKeysTests {
    @Test("the hand-written JSON is byte for byte what JSONEncoder writes with sorted keys")
    func sameAsEncoder() throws {
        let payload = PushPayload(
            aps: APSPayload(
                alert: .init(
                    title: "Freeze tonight", body: "Home, Garden: low −2 °C around 05:00", titleLocKey: "FROST_TITLE_FREEZE",
                    titleLocArgs: ["x"], locKey: "FROST_FREEZE_TONIGHT", locArgs: ["Home, Garden", "-2", "05:00", "2026-11-24"]),
                sound: "default", threadID: "frost-box-123", interruptionLevel: "time-sensitive", contentAvailable: 1),
            frost: .init(box: "60.20,25.00", night: "2026-11-24", level: "freeze", minimumC: -2.5))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(payload.outboxJSON == String(decoding: try encoder.encode(payload), as: UTF8.self))
        let bare = PushPayload(aps: APSPayload())
        #expect(bare.outboxJSON == String(decoding: try encoder.encode(bare), as: UTF8.self))
    }
}
