import Foundation
import FrostboxCore

/// The stored form of an alert's content (the `payload` column of `outbox_push`), the same
/// in SQLite and PostgreSQL: `{"aps": {"alert": {...}, "interruption-level", "sound",
/// "thread-id"}, "frost": {...}}`. The shape was APNs' payload when the outbox was first
/// written, and rows written then must still read back, so it stays: it is a storage format
/// now, not a wire format (each gateway's adapter renders the content for its own wire).
extension AlertContent {
    /// The content as compact JSON with sorted keys and nil members left out, written by hand:
    /// the outbox stores one per distinct push, and Foundation's encoder costs more than the
    /// rest of planning together. `init(outboxJSON:)` reads it back into an equal value.
    public var outboxJSON: String {
        var json = JSONWriter()
        json.object { json in
            json.key("aps")
            json.object { json in
                if title != nil || body != nil || titleLocKey != nil || titleLocArgs != nil || bodyLocKey != nil || bodyLocArgs != nil {
                    json.key("alert")
                    json.object { json in
                        json.member("body", body)
                        json.member("loc-args", bodyLocArgs)
                        json.member("loc-key", bodyLocKey)
                        json.member("title", title)
                        json.member("title-loc-args", titleLocArgs)
                        json.member("title-loc-key", titleLocKey)
                    }
                }
                json.member("interruption-level", interruption?.rawValue)
                json.member("sound", sound)
                json.member("thread-id", group)
            }
            if let frost {
                json.key("frost")
                json.object { json in
                    json.member("box", frost.box)
                    json.member("level", frost.level)
                    if let minimum = frost.minimumC, minimum.isFinite {
                        json.key("minimum_c")
                        json.raw(minimum.description)
                    }
                    json.member("night", frost.night)
                    if let probability = frost.probability {
                        json.key("probability")
                        json.raw(String(probability))
                    }
                }
            }
        }
        return json.text
    }

    /// Content read back from its stored form (`outboxJSON`, or the rows of earlier versions).
    public init(outboxJSON: String) throws {
        let stored = try JSONDecoder().decode(StoredPayload.self, from: Data(outboxJSON.utf8))
        let alert = stored.aps.alert
        self.init(
            title: alert?.title, body: alert?.body, titleLocKey: alert?.titleLocKey, titleLocArgs: alert?.titleLocArgs,
            bodyLocKey: alert?.locKey, bodyLocArgs: alert?.locArgs, sound: stored.aps.sound, group: stored.aps.threadID,
            interruption: stored.aps.interruptionLevel.flatMap(InterruptionLevel.init(rawValue:)),
            frost: stored.frost.map {
                FrostData(box: $0.box, night: $0.night, level: $0.level, minimumC: $0.minimumC, probability: $0.probability)
            })
    }
}

/// The stored payload's shape, for reading it back.
private struct StoredPayload: Decodable {
    struct APS: Decodable {
        struct Alert: Decodable {
            var title: String?
            var body: String?
            var titleLocKey: String?
            var titleLocArgs: [String]?
            var locKey: String?
            var locArgs: [String]?

            enum CodingKeys: String, CodingKey {
                case title, body
                case titleLocKey = "title-loc-key"
                case titleLocArgs = "title-loc-args"
                case locKey = "loc-key"
                case locArgs = "loc-args"
            }
        }

        var alert: Alert?
        var sound: String?
        var threadID: String?
        var interruptionLevel: String?

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
            case interruptionLevel = "interruption-level"
        }
    }

    struct Frost: Decodable {
        var box: String
        var night: String
        var level: String
        var minimumC: Double?
        var probability: Int?

        enum CodingKeys: String, CodingKey {
            case box, night, level, probability
            case minimumC = "minimum_c"
        }
    }

    var aps: APS
    var frost: Frost?
}

/// A minimal JSON text builder: objects, string members, string arrays, raw numbers.
struct JSONWriter {
    private(set) var text = ""
    private var needsComma = false

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        text.append("{")
        needsComma = false
        body(&self)
        text.append("}")
        needsComma = true
    }

    mutating func key(_ name: String) {
        if needsComma { text.append(",") }
        string(name)
        text.append(":")
        needsComma = false
    }

    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
        needsComma = true
    }

    mutating func member(_ name: String, _ values: [String]?) {
        guard let values else { return }
        key(name)
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            string(value)
        }
        text.append("]")
        needsComma = true
    }

    mutating func raw(_ value: String) {
        text.append(value)
        needsComma = true
    }

    private mutating func string(_ value: String) {
        text.append("\"")
        // Most strings need no escaping: appended whole, not scalar by scalar.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text.append(value)
            text.append("\"")
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
