import Foundation
import FrostboxCore
import FrostboxStorageFormats
import Testing

/// The outbox stores an alert's content as JSON written by hand for speed, in the shape rows
/// of earlier versions have: it must read back into an equal value, and those rows must too.
@Suite("Outbox payload JSON")
struct OutboxPayloadKeysTests {
    static let full = AlertContent(
        title: "Freeze tonight", body: "Home, Garden: low −2 °C around 05:00", titleLocKey: "FROST_TITLE_FREEZE",
        titleLocArgs: ["x"], bodyLocKey: "FROST_FREEZE_TONIGHT", bodyLocArgs: ["Home, Garden", "-2", "05:00", "2026-11-24"],
        sound: "default", group: "frost-box-123", interruption: .timeSensitive,
        frost: FrostData(box: "60.20,25.00", night: "2026-11-24", level: "freeze", minimumC: -2.5))

    @Test("the stored JSON has sorted keys, no nil members, and reads back into an equal value")
    func roundTrip() throws {
        let json = Self.full.outboxJSON
        #expect(
            json
                == #"{"aps":{"alert":{"body":"Home, Garden: low −2 °C around 05:00","loc-args":["Home, Garden","-2","05:00","2026-11-24"],"#
                + #""loc-key":"FROST_FREEZE_TONIGHT","title":"Freeze tonight","title-loc-args":["x"],"title-loc-key":"FROST_TITLE_FREEZE"},"#
                + #""interruption-level":"time-sensitive","sound":"default","thread-id":"frost-box-123"},"#
                + #""frost":{"box":"60.20,25.00","level":"freeze","minimum_c":-2.5,"night":"2026-11-24"}}"#)
        #expect(try AlertContent(outboxJSON: json) == Self.full)
        let bare = AlertContent()
        #expect(bare.outboxJSON == #"{"aps":{}}"#)
        #expect(try AlertContent(outboxJSON: bare.outboxJSON) == bare)
    }

    @Test("a payload row written by an earlier version (APNs' shape, with content-available) reads back")
    func earlierRow() throws {
        let stored =
            #"{"aps":{"alert":{"body":"Frost tonight","loc-key":"FROST_FREEZE_TONIGHT","title":"Frost warning"},"#
            + #""content-available":1,"interruption-level":"active","sound":"default","thread-id":"frost-box-7"},"#
            + #""frost":{"box":"60.20,25.00","level":"freeze","night":"2026-11-24"}}"#
        let content = try AlertContent(outboxJSON: stored)
        #expect(content.title == "Frost warning")
        #expect(content.bodyLocKey == "FROST_FREEZE_TONIGHT")
        #expect(content.interruption == .active)
        #expect(content.group == "frost-box-7")
        #expect(content.frost?.minimumC == nil)
        #expect(throws: (any Error).self) { try AlertContent(outboxJSON: #"{"frost":{}}"#) }
    }
}

@Suite("Stored deliveries by platform")
struct PlatformDeliveriesCodecTests {
    @Test("the text form round-trips in platform order; an item this version cannot read is skipped, not the run")
    func roundTrip() {
        let deliveries = PlatformDeliveries([.ios: .init(delivered: 12, failed: 1), .android: .init(delivered: 3, failed: 0)])
        #expect(PlatformDeliveriesCodec.encode(deliveries) == "android:3:0;ios:12:1")
        #expect(PlatformDeliveriesCodec.decode("android:3:0;ios:12:1") == deliveries)
        #expect(PlatformDeliveriesCodec.decode("") == PlatformDeliveries())
        #expect(PlatformDeliveriesCodec.decode("watch:1:1;ios:12:1;android:x:0") == PlatformDeliveries([.ios: .init(delivered: 12, failed: 1)]))
    }
}
